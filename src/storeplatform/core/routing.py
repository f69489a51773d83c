"""URL dispatch by literal path segments.

Pyramid's mapper tries every route in the order they were added until one matches: a site with
its plugins has hundreds of routes, and a request to a plugin's namespace ran fifty regular
expressions before its own. This mapper files each route under the literal path segments its
pattern starts with, and tries only the routes whose literal segments the path starts with, still
in the order they were added, so the first route that matches (predicates included) is the same
as Pyramid's.
"""
import re

from pyramid.urldispatch import RoutesMapper

# Where a pattern stops being literal: a replacement marker ({name}, old-style :name) or a
# star at the end. Cutting earlier than needed only adds candidates, never loses one.
_NOT_LITERAL = re.compile(r"[{:*]")


def literal_segments(pattern):
    """The path segments every path the pattern matches starts with."""
    if not pattern.startswith("/"):
        pattern = "/" + pattern
    cut = _NOT_LITERAL.search(pattern)
    literal = pattern if cut is None else pattern[:cut.start()]
    # The last segment is complete only if a slash follows it (or the pattern ends there).
    segments = literal.split("/")[1:]
    if cut is not None:
        segments = segments[:-1]
    return tuple(segments)


class _Node:
    __slots__ = ("routes", "children")

    def __init__(self):
        self.routes = []  # (position, route) of the routes whose literal segments end here
        self.children = {}


class IndexedRoutesMapper(RoutesMapper):
    def __init__(self):
        super().__init__()
        self._root = None

    def connect(self, *args, **kwargs):
        route = super().connect(*args, **kwargs)
        self._root = None  # built again on the next request
        return route

    def _index(self):
        root = _Node()
        for position, route in enumerate(self.routelist):
            node = root
            for segment in literal_segments(route.pattern):
                node = node.children.setdefault(segment, _Node())
            node.routes.append((position, route))
        self._root = root
        return root

    def candidates(self, path):
        """The routes that can match ``path``, in the order they were added."""
        node = self._root or self._index()
        found = list(node.routes)
        for segment in path.split("/")[1:]:
            node = node.children.get(segment)
            if node is None:
                break
            found += node.routes
        found.sort(key=_position)
        return [route for _, route in found]

    def __call__(self, request):
        try:
            path = request.path_info or "/"
        except KeyError:
            path = "/"
        except UnicodeDecodeError:
            # No route has a path that is not UTF-8; the ingress tween refuses it with a 400. The
            # mapper may be asked before that, outside the error views (the transaction hook of
            # a POST, storeplatform.db): it answers, it does not raise.
            return {"route": None, "match": None}
        # A request is routed twice when its transaction depends on its route (a read_only POST,
        # storeplatform.db): the second time gets the first answer.
        known = request.__dict__.get(_MATCHED)
        if known is not None and known[0] == path:
            return known[1]
        info = self._match(request, path)
        request.__dict__[_MATCHED] = (path, info)
        return info

    def _match(self, request, path):
        for route in self.candidates(path):
            match = route.match(path)
            if match is not None:
                preds = route.predicates
                info = {"match": match, "route": route}
                if preds and not all(p(info, request) for p in preds):
                    continue
                return info
        return {"route": None, "match": None}


_MATCHED = "_storeplatform_route"


def _position(entry):
    return entry[0]
