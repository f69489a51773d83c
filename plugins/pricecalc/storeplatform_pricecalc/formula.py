"""Custom formulas: a small expression language evaluated over Decimal by walking Python's
``ast`` with an allow-list, never ``eval``.

Allowed: numbers, names (inputs and custom variables), + - * /, ``**`` with a constant
exponent 0..10, comparisons, and/or/not, ``a if cond else b``, and the functions min max abs
round ceil floor sqrt. Attribute access, subscripts, calls of anything else, keywords,
strings and lambdas are refused. Length, nesting depth and node count are bounded so that a
saved formula cannot make a calculation slow.
"""
import ast
import functools
import re
from decimal import (ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_UP, Context, Decimal, DivisionByZero, InvalidOperation,
                     Overflow, localcontext)

MAX_LENGTH = 500
MAX_DEPTH = 20
MAX_NODES = 200
MAX_EXPONENT = 10
NAME_PATTERN = re.compile(r"^[a-z_][a-z0-9_]{0,39}$")
FUNCTIONS = {"min", "max", "abs", "round", "ceil", "floor", "sqrt"}
# Results beyond 1e30 are no price anyone means; the bound also keeps Decimal work small.
CONTEXT = Context(prec=40, Emax=30, Emin=-30, traps=[DivisionByZero, InvalidOperation, Overflow])

_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)
_CMPOPS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)


class FormulaError(ValueError):
    """The formula is refused (at save time); the message says why."""


class EvaluationError(ValueError):
    """The formula cannot be evaluated for these values (division by zero, ...)."""


@functools.lru_cache(maxsize=256)
def parse(text):
    """The checked syntax tree of ``text`` and the names it uses; FormulaError when refused."""
    if not isinstance(text, str) or not text.strip():
        raise FormulaError("the formula is empty")
    if len(text) > MAX_LENGTH:
        raise FormulaError(f"the formula is longer than {MAX_LENGTH} characters")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise FormulaError(f"the formula is not a valid expression ({exc.msg})")
    names = set()
    count = [0]
    _check(tree.body, 1, names, count)
    return tree.body, frozenset(names)


def _check(node, depth, names, count):
    count[0] += 1
    if depth > MAX_DEPTH:
        raise FormulaError(f"the formula is nested deeper than {MAX_DEPTH} levels")
    if count[0] > MAX_NODES:
        raise FormulaError(f"the formula has more than {MAX_NODES} parts")
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise FormulaError(f"only numbers are allowed as constants, not {node.value!r}")
        if not abs(node.value) < 10 ** 30:  # also refuses inf from a literal like 1e999
            raise FormulaError(f"the number {node.value!r} is too large")
        return
    if isinstance(node, ast.Name):
        if node.id in FUNCTIONS:
            raise FormulaError(f"{node.id} is a function: call it as {node.id}(...)")
        names.add(node.id)
        return
    if isinstance(node, ast.BinOp):
        if not isinstance(node.op, _BINOPS):
            raise FormulaError(f"the operator {_op_name(node.op)} is not allowed")
        if isinstance(node.op, ast.Pow):
            exponent = node.right
            if not (isinstance(exponent, ast.Constant) and isinstance(exponent.value, (int, float))
                    and not isinstance(exponent.value, bool) and 0 <= exponent.value <= MAX_EXPONENT):
                raise FormulaError(f"** needs a constant exponent between 0 and {MAX_EXPONENT}")
        _check(node.left, depth + 1, names, count)
        _check(node.right, depth + 1, names, count)
        return
    if isinstance(node, ast.UnaryOp):
        if not isinstance(node.op, (ast.USub, ast.UAdd, ast.Not)):
            raise FormulaError(f"the operator {_op_name(node.op)} is not allowed")
        _check(node.operand, depth + 1, names, count)
        return
    if isinstance(node, ast.BoolOp):
        for value in node.values:
            _check(value, depth + 1, names, count)
        return
    if isinstance(node, ast.Compare):
        for op in node.ops:
            if not isinstance(op, _CMPOPS):
                raise FormulaError(f"the comparison {_op_name(op)} is not allowed")
        _check(node.left, depth + 1, names, count)
        for comparator in node.comparators:
            _check(comparator, depth + 1, names, count)
        return
    if isinstance(node, ast.IfExp):
        for part in (node.test, node.body, node.orelse):
            _check(part, depth + 1, names, count)
        return
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            raise FormulaError("only the functions " + ", ".join(sorted(FUNCTIONS)) + " may be called")
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise FormulaError(f"{node.func.id}() takes plain arguments only")
        _check_arity(node.func.id, node.args)
        for arg in node.args:
            _check(arg, depth + 1, names, count)
        return
    raise FormulaError(f"{type(node).__name__} is not allowed in a formula")


def _check_arity(name, args):
    n = len(args)
    ok = {"min": n >= 1, "max": n >= 1, "abs": n == 1, "sqrt": n == 1, "ceil": n == 1, "floor": n == 1,
          "round": n in (1, 2)}[name]
    if not ok:
        raise FormulaError(f"{name}() called with {n} argument(s)")
    if name == "round" and n == 2:
        places = args[1]
        if not (isinstance(places, ast.Constant) and isinstance(places.value, int)
                and not isinstance(places.value, bool) and 0 <= places.value <= 10):
            raise FormulaError("round(x, n) needs a constant n between 0 and 10")


def _op_name(op):
    return type(op).__name__


def check(text, allowed_names):
    """Refuse ``text`` unless it parses and uses only ``allowed_names``; FormulaError."""
    _, names = parse(text)
    unknown = sorted(names - set(allowed_names))
    if unknown:
        raise FormulaError("unknown name(s) in the formula: " + ", ".join(unknown))


def evaluate(text, values):
    """The Decimal value of ``text`` with ``values`` (name -> Decimal); EvaluationError when
    the values make it undefined (division by zero, square root of a negative, overflow)."""
    tree, _ = parse(text)
    with localcontext(CONTEXT):
        try:
            return +_eval(tree, values)
        except ZeroDivisionError:
            raise EvaluationError("division by zero")
        except DivisionByZero:
            raise EvaluationError("division by zero")
        except Overflow:
            raise EvaluationError("the result is too large")
        except InvalidOperation:
            raise EvaluationError("the result is undefined (e.g. square root of a negative number)")
        except KeyError as exc:
            raise EvaluationError(f"no value for {exc.args[0]}")


_ONE = Decimal(1)
_ZERO = Decimal(0)


def _eval(node, values):
    if isinstance(node, ast.Constant):
        return Decimal(str(node.value))
    if isinstance(node, ast.Name):
        return values[node.id]
    if isinstance(node, ast.BinOp):
        left = _eval(node.left, values)
        op = node.op
        if isinstance(op, ast.Pow):
            return left ** Decimal(str(node.right.value))
        right = _eval(node.right, values)
        if isinstance(op, ast.Add):
            return left + right
        if isinstance(op, ast.Sub):
            return left - right
        if isinstance(op, ast.Mult):
            return left * right
        return left / right
    if isinstance(node, ast.UnaryOp):
        operand = _eval(node.operand, values)
        if isinstance(node.op, ast.USub):
            return -operand
        if isinstance(node.op, ast.UAdd):
            return +operand
        return _ONE if not operand else _ZERO
    if isinstance(node, ast.BoolOp):
        is_and = isinstance(node.op, ast.And)
        result = _ZERO
        for part in node.values:
            result = _eval(part, values)
            if bool(result) != is_and:
                return result
        return result
    if isinstance(node, ast.Compare):
        left = _eval(node.left, values)
        for op, comparator in zip(node.ops, node.comparators):
            right = _eval(comparator, values)
            if not _compare(op, left, right):
                return _ZERO
            left = right
        return _ONE
    if isinstance(node, ast.IfExp):
        return _eval(node.body, values) if _eval(node.test, values) else _eval(node.orelse, values)
    # ast.Call, checked by parse()
    name = node.func.id
    if name == "round" and len(node.args) == 2:
        places = node.args[1].value
        return _eval(node.args[0], values).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    args = [_eval(arg, values) for arg in node.args]
    if name == "min":
        return min(args)
    if name == "max":
        return max(args)
    if name == "abs":
        return abs(args[0])
    if name == "round":
        return args[0].quantize(_ONE, rounding=ROUND_HALF_UP)
    if name == "ceil":
        return args[0].to_integral_value(rounding=ROUND_CEILING)
    if name == "floor":
        return args[0].to_integral_value(rounding=ROUND_FLOOR)
    return args[0].sqrt()


def _compare(op, left, right):
    if isinstance(op, ast.Eq):
        return left == right
    if isinstance(op, ast.NotEq):
        return left != right
    if isinstance(op, ast.Lt):
        return left < right
    if isinstance(op, ast.LtE):
        return left <= right
    if isinstance(op, ast.Gt):
        return left > right
    return left >= right
