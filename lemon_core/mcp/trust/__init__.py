"""Trust of a project's MCP servers: which entries lemon may start (:mod:`.identity`), the
user's record of trusted launch lines (:mod:`.store`), and the policy the tool host asks
(:mod:`.policy`)."""
