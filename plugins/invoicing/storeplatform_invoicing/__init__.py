"""The invoicing plugin of storeplatform."""
