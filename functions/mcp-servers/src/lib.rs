//! The MCP servers function: wiring only. Its routes (`/api/v1/mcp-servers`, docs/api.md "MCP servers") are
//! `specpress-mcp-servers-api`'s; `specpress serve` takes them from here.

pub use specpress_mcp_servers_api::router;
