"""The pricecalc plugin of storeplatform."""
