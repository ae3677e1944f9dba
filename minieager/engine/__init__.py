"""The engine: Tensor, dtypes, devices, errors, and the Op machinery that runs and records ops."""
