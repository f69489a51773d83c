"""The fonts a site owner may choose for the PDFs (option ``invoicing.font``): the TrueType
files (.ttf, .ttc) under the deployment's font directories, by file name. The directories come
from the ini setting ``invoicing.font_dirs`` (the system's font folders by default): who runs
the server decides which files may be read, the owner picks one by name, and no path is typed
into a form. reportlab cannot embed CFF-based .otf fonts, so they are not offered."""
import os
import threading
import time

SETTING = "invoicing.font_dirs"
DEFAULT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts")
SUFFIXES = (".ttf", ".ttc")
RESCAN_SECONDS = 60  # a font installed meanwhile is offered within a minute, without a restart
MAX_FILES = 5000  # a font folder is not the whole disk: stop looking after this many

_lock = threading.Lock()
_scans = {}  # directories -> (time, {name: path})


def font_dirs(settings):
    text = (settings or {}).get(SETTING)
    if text is None:
        return DEFAULT_DIRS
    return tuple(part for part in str(text).split() if part)


def font_files(settings):
    """``{file name: path}`` of the fonts found, by name (the first directory holding a name
    wins)."""
    dirs = font_dirs(settings)
    now = time.monotonic()
    with _lock:
        scanned = _scans.get(dirs)
        if scanned and now - scanned[0] < RESCAN_SECONDS:
            return scanned[1]
    found = {}
    for top in dirs:
        for folder, subfolders, files in os.walk(top):
            subfolders.sort()
            for name in sorted(files):
                if name.lower().endswith(SUFFIXES) and name not in found:
                    found[name] = os.path.join(folder, name)
            if len(found) >= MAX_FILES:
                break
    found = dict(sorted(found.items(), key=lambda item: item[0].lower()))
    with _lock:
        _scans[dirs] = (now, found)
    return found


def font_choices(settings):
    """The values option ``invoicing.font`` may take: empty (the bundled DejaVu Sans alone) or
    a font file's name."""
    return ("", *font_files(settings))


def font_file(settings, name):
    """The path of the chosen font, or None (none chosen, or no longer installed)."""
    if not name:
        return None
    path = font_files(settings).get(name)
    if path is None:
        with _lock:  # it may have been installed since the last look
            _scans.pop(font_dirs(settings), None)
        path = font_files(settings).get(name)
    return path
