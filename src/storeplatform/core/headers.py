"""Headers every answer of the site carries, and the ones that keep the admin's pages from
being framed or running anything but the site's own scripts and styles."""

EVERY_ANSWER = (
    ("X-Content-Type-Options", "nosniff"),
    # The admin's addresses (and a storefront's) are nobody else's business; same-site links
    # keep their referrer for the site's own logs.
    ("Referrer-Policy", "same-origin"),
)
ADMIN_ANSWER = (
    ("X-Frame-Options", "DENY"),
    # Scripts and styles from the site only (the admin has no inline ones); the desk's camera
    # shows a MediaStream and its QR images may be data: URLs.
    ("Content-Security-Policy",
     "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
     "media-src 'self' blob: mediastream:; connect-src 'self'; object-src 'none'; base-uri 'self'; "
     "form-action 'self'; frame-ancestors 'none'"),
)


def security_headers_tween_factory(handler, registry):
    every = tuple((name.lower(), name, value) for name, value in EVERY_ANSWER)
    admin = tuple((name.lower(), name, value) for name, value in ADMIN_ANSWER) + every

    def tween(request):
        response = handler(request)
        # On the header list itself: WebOb's header view costs every answer a dozen Python calls
        # (a lookup and a copy of the list per header set).
        headerlist = response.headerlist
        present = set()
        for name, _ in headerlist:
            present.add(name.lower())
        for lowered, name, value in admin if request.is_admin else every:
            if lowered not in present:  # a view that set its own keeps it
                headerlist.append((name, value))
        return response

    return tween
