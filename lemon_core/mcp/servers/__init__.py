"""MCP servers lemon runs: the lazy skills server (``find_skills`` / ``load_skill``) and the
gateway (``lemon mcp serve``).
"""
