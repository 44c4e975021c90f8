"""(filled in by its op issue)"""
__all__ = []
