"""Records: a row's column values as an immutable value, for what is kept beyond the session that
read it (``@cached`` values are handed to every request the process serves, on any thread).
An ORM instance is the session's: shared between threads, its attribute loads, expiry and
identity map are not safe, and a detached one raises on the first attribute it has not loaded."""
from collections import namedtuple

from sqlalchemy import inspect

_RECORD_CLASSES = {}  # mapped class -> its record class (made once per process)


def record_of(instance):
    """The column values of ``instance`` (an ORM instance, or None) as a named tuple of its
    mapped class's column attributes, by their attribute names (``product.sale_price``). JSON
    values are the instance's own objects: read them, never change them."""
    if instance is None:
        return None
    mapper = inspect(type(instance))
    record_class = _RECORD_CLASSES.get(mapper.class_)
    if record_class is None:
        names = tuple(attr.key for attr in mapper.column_attrs)
        record_class = _RECORD_CLASSES[mapper.class_] = namedtuple(f"{mapper.class_.__name__}Record", names)
    return record_class._make(getattr(instance, name) for name in record_class._fields)


def is_orm_instance(value):
    """Whether ``value`` is an instance of a mapped class (what a kept value must not hold)."""
    return hasattr(type(value), "__mapper__")
