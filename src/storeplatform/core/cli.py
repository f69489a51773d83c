"""The command line's machinery, for every part that adds commands (the app's own, components',
plugins' through ``storeplatform_cli_commands``): one-line errors, a parser that says them, and
tables."""
import argparse


class CliError(Exception):
    """A clear one-line message for stderr; exit status 1."""


class Parser(argparse.ArgumentParser):
    def error(self, message):
        # One clear line, not argparse's usage block.
        raise CliError(f"{self.prog}: {message}")


def table(header, rows):
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in (header, *rows))
