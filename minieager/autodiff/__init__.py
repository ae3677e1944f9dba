"""Automatic differentiation: Variable, GradientTape, custom gradients, gradient checking."""
