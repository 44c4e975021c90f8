"""aclnnAvgPool2d and aclnnAvgPool2dBackward on numpy arrays."""
__all__ = []
