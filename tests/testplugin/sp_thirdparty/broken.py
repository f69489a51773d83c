"""A plugin whose import fails, to show that start-up stops with one clear line naming it."""
raise ImportError("this plugin is broken on purpose")
