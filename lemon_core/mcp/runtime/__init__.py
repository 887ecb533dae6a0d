"""The MCP runtime: a tool host for embedders (discovery, stable names, filters, caching,
recovery, approvals) over the effective set.
"""
