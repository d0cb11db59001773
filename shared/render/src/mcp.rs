//! Discovery of the portal's MCP (Model Context Protocol) servers: the link every page of a documentation or a hub
//! carries in its footer (the shell), the "Use with an AI agent" section of a documentation's home page and of a
//! hub's page (template `mcp.html`: a client configuration to copy, as selectable text), and the "MCP server"
//! section of an `llms.txt`.
//!
//! The configuration is JSON written here (every value a JSON string literal), then escaped for HTML by the
//! template: no document or request text can end the string, the block or the page.

use std::fmt::Write;

use askama::Template;

use crate::html::Html;
use crate::tpl;

/// The tools an MCP server of the portal offers, as `llms.txt` and the home page name them.
pub const MCP_TOOLS: &[&str] = &[
    "list_pages",
    "search",
    "get_pages",
    "list_changes",
    "get_change",
    "operation_history",
    "compare",
    "get_definition",
];

/// What an MCP server serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum McpScope {
    /// A documentation on one branch.
    Documentation,
    /// A hub's documentations.
    Hub,
}

impl McpScope {
    fn noun(self) -> &'static str {
        match self {
            McpScope::Documentation => "documentation",
            McpScope::Hub => "hub",
        }
    }

    /// Whose tokens open it when it is private.
    fn token_owners(self) -> &'static str {
        match self {
            McpScope::Documentation => "this documentation, its hub or the organization",
            McpScope::Hub => "this hub or the organization",
        }
    }
}

/// The MCP server of the documentation (on the branch shown) or of the hub a page is about.
#[derive(Clone, Copy, Debug)]
pub struct McpServer<'a> {
    /// The endpoint's URL path on this site (`/doc/pets/mcp`, `/doc/pets/branches/next/mcp`, `/hub/vets/mcp`),
    /// URL-safe: the link of every page.
    pub href: &'a str,
    /// The endpoint's absolute URL (`https://docs.example.com/doc/pets/mcp`), URL-safe. Given where the page shows
    /// the client configuration (a documentation's home page, a hub's page); `None` elsewhere (no configuration).
    pub url: Option<&'a str>,
    /// The server's name in the client configuration: the documentation's or the hub's slug (untrusted).
    pub name: &'a str,
    pub scope: McpScope,
    /// The documentation or hub is private: a client sends `Authorization: Bearer <token>` (the configuration
    /// carries a placeholder, never a token).
    pub token: bool,
}

/// The placeholder of the token in a client configuration.
pub const TOKEN_PLACEHOLDER: &str = "<your token>";

/// A JSON string literal of `s` (quotes included).
fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned())
}

/// The MCP client configuration (`mcpServers`, the shape Claude Desktop, Cursor, VS Code and most clients read) of
/// the server `name` at `url`, with an `Authorization` header placeholder when a token is needed. JSON text, not
/// escaped for HTML.
pub fn client_config(url: &str, name: &str, token: bool) -> String {
    let name = if name.trim().is_empty() { "api" } else { name };
    let mut out = String::with_capacity(128 + url.len() + name.len());
    out.push_str("{\n  \"mcpServers\": {\n");
    let _ = writeln!(out, "    {}: {{", json_string(name));
    let _ = write!(out, "      \"url\": {}", json_string(url));
    if token {
        let _ = write!(
            out,
            ",\n      \"headers\": {{\n        \"Authorization\": {}\n      }}",
            json_string(&format!("Bearer {TOKEN_PLACEHOLDER}"))
        );
    }
    out.push_str("\n    }\n  }\n}");
    out
}

#[derive(Template)]
#[template(path = "mcp.html", escape = "engine")]
struct AgentSection<'a> {
    noun: &'static str,
    href: &'a str,
    tools: &'static [&'static str],
    config: String,
    token_owners: Option<&'static str>,
    placeholder: &'static str,
}

/// The "Use with an AI agent" section of a page about `server`: what it offers and its client configuration.
/// `None` when the page has no absolute URL of the server.
pub(crate) fn agent_section(server: Option<&McpServer<'_>>) -> Option<Html> {
    let server = server?;
    let url = server.url?;
    let section = AgentSection {
        noun: server.scope.noun(),
        href: server.href,
        tools: MCP_TOOLS,
        config: client_config(url, server.name, server.token),
        token_owners: server.token.then(|| server.scope.token_owners()),
        placeholder: TOKEN_PLACEHOLDER,
    };
    Some(tpl::render(&section, 1024))
}

/// The "MCP server" section of an `llms.txt` (a `##` heading, one line, a blank line): the server's absolute URL
/// (`url`, else `href`), what it speaks and its tools, and the header a private one needs.
pub fn llms_section(out: &mut String, server: &McpServer<'_>) {
    let url = server.url.unwrap_or(server.href);
    let _ = write!(
        out,
        "## MCP server\n\n- [MCP server]({url}): this {}'s Model Context Protocol endpoint (Streamable HTTP), with the tools {}",
        server.scope.noun(),
        MCP_TOOLS
            .iter()
            .map(|t| format!("`{t}`"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if server.token {
        let _ = write!(
            out,
            "; send `Authorization: Bearer <token>` with a token of {}",
            server.scope.token_owners()
        );
    }
    out.push_str(".\n\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server<'a>(url: &'a str, name: &'a str, token: bool) -> McpServer<'a> {
        McpServer {
            href: "/doc/pets/mcp",
            url: Some(url),
            name,
            scope: McpScope::Documentation,
            token,
        }
    }

    #[test]
    fn the_client_configuration_is_json_naming_the_server_by_its_slug() {
        let c = client_config("https://docs.example.com/doc/github/mcp", "github", false);
        assert_eq!(
            c,
            "{\n  \"mcpServers\": {\n    \"github\": {\n      \"url\": \"https://docs.example.com/doc/github/mcp\"\n    }\n  }\n}"
        );
        let v: serde_json::Value = serde_json::from_str(&c).unwrap();
        assert_eq!(
            v["mcpServers"]["github"]["url"],
            "https://docs.example.com/doc/github/mcp"
        );
        assert!(v["mcpServers"]["github"].get("headers").is_none());
    }

    #[test]
    fn a_private_server_s_configuration_carries_a_token_placeholder_header() {
        let v: serde_json::Value =
            serde_json::from_str(&client_config("https://x/doc/a/mcp", "a", true)).unwrap();
        assert_eq!(
            v["mcpServers"]["a"]["headers"]["Authorization"],
            "Bearer <your token>"
        );
    }

    #[test]
    fn a_hostile_name_or_url_stays_inside_its_json_string_and_is_escaped_for_html() {
        let name =
            "x\"}, \"evil\": {\"url\": \"https://evil\"}</code></pre><script>alert(1)</script>";
        let url = "https://docs.example.com/doc/x\"<b>/mcp";
        let c = client_config(url, name, false);
        let v: serde_json::Value = serde_json::from_str(&c).unwrap();
        let servers = v["mcpServers"].as_object().unwrap();
        assert_eq!(servers.len(), 1);
        assert_eq!(servers[name]["url"], url);
        let html = agent_section(Some(&server(url, name, true))).unwrap();
        let html = html.as_str();
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("</code></pre><"), "{html}");
        assert!(html.contains("&lt;script&gt;"), "{html}");
        assert!(html.contains("Bearer &lt;your token&gt;"), "{html}");
        assert_eq!(html.matches("<pre").count(), 1);
    }

    #[test]
    fn without_an_absolute_url_there_is_no_section() {
        let mut s = server("https://x/doc/pets/mcp", "pets", false);
        s.url = None;
        assert!(agent_section(Some(&s)).is_none());
        assert!(agent_section(None).is_none());
    }

    #[test]
    fn the_llms_section_names_the_absolute_url_and_the_tools() {
        let mut out = String::new();
        llms_section(&mut out, &server("https://x/doc/pets/mcp", "pets", false));
        assert!(
            out.starts_with("## MCP server\n\n- [MCP server](https://x/doc/pets/mcp): "),
            "{out}"
        );
        for t in MCP_TOOLS {
            assert!(out.contains(t), "{t}: {out}");
        }
        assert!(!out.contains("Bearer"), "{out}");
        let mut out = String::new();
        llms_section(&mut out, &server("https://x/doc/pets/mcp", "pets", true));
        assert!(out.contains("`Authorization: Bearer <token>`"), "{out}");
    }
}
