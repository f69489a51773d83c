"""The events plugin of storeplatform."""
