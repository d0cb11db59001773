//! `specpress diff PREVIOUS CURRENT`: the offline command-line entry point.
//!
//! Files may be YAML or JSON. External `$ref`s are read from disk relative to the file that
//! contains them, only below the directory of the root file, and passed to the spec engine as
//! its `references`. Exit code 0 when no change reaches the `--fail-on` level, 1 when one does,
//! 2 on usage, I/O or parse errors.

use std::collections::{HashSet, VecDeque};
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;

use specpress_apispec::{Document, Limits, Reference};

use crate::{DiffOptions, DiffReport, Format, Level, OptionsError};

/// Largest file the command reads (the service keeps the spec engine's default of 5 MiB).
pub const MAX_FILE_BYTES: usize = 64 * 1024 * 1024;
/// Most external files one document may pull in.
pub const MAX_FILES: usize = 200;

/// The level at which the command exits with status 1.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    /// Exit 1 when a breaking change is found.
    Breaking,
    /// Exit 1 when a breaking change or a warning is found.
    Warning,
}

/// What the command prints: a rendering of the report, or GitHub Actions annotations.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// `Modified: GET /x` lines (bump-cli's text format).
    Text,
    /// A pull-request comment.
    Markdown,
    /// The Bump.sh `DiffItem[]` tree plus rule ids, change ids and locations.
    Json,
    /// A self-contained HTML fragment.
    Html,
    /// GitHub Actions workflow commands: `::error` for each breaking change, `::warning` for
    /// each warning and deprecation, at its file (as given on the command line) and line.
    Github,
}

/// `specpress diff PREVIOUS CURRENT [--format text|markdown|json|html|github] [--fail-on breaking|warning]`
#[derive(clap::Args, Debug, Clone)]
#[command(about = "Compare two API documents and classify every change")]
pub struct DiffCommand {
    /// The previous version of the document (YAML or JSON).
    pub previous: PathBuf,
    /// The current version of the document (YAML or JSON).
    pub current: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: OutputFormat,
    /// Exit with status 1 when a change at this level (or above) is found.
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOn>,
    /// Override a rule's level, e.g. `--level response-body-enum-value-added=breaking`.
    #[arg(long = "level", value_name = "RULE=LEVEL")]
    pub levels: Vec<String>,
    /// Ignore a rule everywhere, or for one operation: `--ignore 'endpoint-removed@GET /pets/{id}'`.
    #[arg(long = "ignore", value_name = "RULE[@METHOD /path]")]
    pub ignore: Vec<String>,
}

/// What can go wrong before a diff exists.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} is {size} bytes, more than the limit of {limit} bytes")]
    TooLarge {
        path: String,
        size: u64,
        limit: usize,
    },
    #[error("{path} is not valid UTF-8")]
    Encoding { path: String },
    #[error(
        "{path}: $ref '{reference}' points outside {root} (only files below the document's directory are read)"
    )]
    Outside {
        path: String,
        reference: String,
        root: String,
    },
    #[error("{path}: more than {limit} referenced files")]
    TooManyFiles { path: String, limit: usize },
    #[error("{path} is not a valid API document:\n{message}")]
    Invalid { path: String, message: String },
    #[error(transparent)]
    Options(#[from] OptionsError),
    #[error("cannot write the output: {0}")]
    Output(#[source] std::io::Error),
}

impl DiffCommand {
    /// Runs the command, printing to stdout (errors to stderr).
    pub fn run(&self) -> ExitCode {
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        match self.execute(&mut out) {
            Ok(code) => ExitCode::from(code),
            Err(e) => {
                eprintln!("specpress diff: error: {e}");
                ExitCode::from(2)
            }
        }
    }

    /// Runs the command, writing the rendering to `out`; returns the exit status (0 or 1).
    pub fn execute(&self, out: &mut dyn Write) -> Result<u8, CliError> {
        let report = self.report()?;
        let text = match self.format {
            OutputFormat::Text => report.render(Format::Text),
            OutputFormat::Markdown => report.render(Format::Markdown),
            OutputFormat::Json => report.render(Format::Json),
            OutputFormat::Html => report.render(Format::Html),
            OutputFormat::Github => self.annotations(&report),
        };
        out.write_all(text.as_bytes()).map_err(CliError::Output)?;
        out.flush().map_err(CliError::Output)?;
        let failed = match self.fail_on {
            Some(FailOn::Breaking) => report.has_level(Level::Breaking),
            Some(FailOn::Warning) => report.has_level(Level::Warning),
            None => false,
        };
        Ok(u8::from(failed))
    }

    /// The options the flags describe.
    pub fn options(&self) -> Result<DiffOptions, CliError> {
        let mut options = DiffOptions::new();
        for l in &self.levels {
            options.apply_override(l)?;
        }
        for i in &self.ignore {
            options.apply_ignore(i)?;
        }
        Ok(options)
    }

    /// One GitHub Actions annotation per breaking change (`::error`), warning or deprecation
    /// (`::warning`), in the report's order: at the change's place in the current document, or
    /// in the previous one for what was removed; the file is the path given on the command
    /// line, or a referenced file's path next to it.
    fn annotations(&self, report: &DiffReport) -> String {
        let mut out = String::new();
        for c in report.changes() {
            let command = match c.level() {
                Level::Breaking => "error",
                Level::Warning => "warning",
                _ if c.rule_id().ends_with("-deprecated") => "warning",
                _ => continue,
            };
            let (root, place) = match (c.place(), c.previous_place()) {
                (Some(p), _) => (&self.current, Some(p)),
                (None, Some(p)) => (&self.previous, Some(p)),
                (None, None) => (&self.current, None),
            };
            let file = match place.and_then(|p| p.file.as_deref()) {
                Some(referenced) => root
                    .parent()
                    .unwrap_or(Path::new(""))
                    .join(referenced)
                    .display()
                    .to_string(),
                None => root.display().to_string(),
            };
            out.push_str("::");
            out.push_str(command);
            out.push_str(" file=");
            out.push_str(&escape_property(&file));
            if let Some(p) = place {
                out.push_str(&format!(",line={},col={}", p.line, p.column));
            }
            out.push_str(",title=");
            out.push_str(&escape_property(&format!(
                "{} ({})",
                c.subject(),
                c.rule_id()
            )));
            out.push_str("::");
            out.push_str(&escape_data(c.message()));
            out.push('\n');
        }
        out
    }

    /// Loads both files and diffs them.
    pub fn report(&self) -> Result<DiffReport, CliError> {
        let options = self.options()?;
        let (previous, current) = load_pair(&self.previous, &self.current)?;
        Ok(crate::diff(&previous, &current, &options))
    }
}

/// A workflow command's message: `%`, CR and LF escaped (GitHub's toolkit does the same).
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property value: as a message, and `:` and `,` too.
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

fn read_text(path: &Path) -> Result<String, CliError> {
    let shown = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|source| CliError::Io {
        path: shown.clone(),
        source,
    })?;
    if meta.len() > MAX_FILE_BYTES as u64 {
        return Err(CliError::TooLarge {
            path: shown,
            size: meta.len(),
            limit: MAX_FILE_BYTES,
        });
    }
    let bytes = std::fs::read(path).map_err(|source| CliError::Io {
        path: shown.clone(),
        source,
    })?;
    String::from_utf8(bytes).map_err(|_| CliError::Encoding { path: shown })
}

/// The `$ref` values written in a YAML or JSON text that may name another file, i.e. all but the
/// in-document ones (`#/...`), which a large document has by the ten thousand (a lexical scan: it
/// finds refs in block and flow YAML as well as JSON, quoted or not).
pub(crate) fn scan_refs(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    // Each `$ref`, found with memchr's vectorized substring search (the text is several MB, the `$ref`s a few
    // hundred bytes apart).
    for at in memchr::memmem::find_iter(text.as_bytes(), b"$ref") {
        let Some(mut rest) = text.get(at + 4..) else {
            continue;
        };
        rest = rest.strip_prefix(['"', '\'']).unwrap_or(rest);
        let rest = rest.trim_start_matches([' ', '\t']);
        let Some(rest) = rest.strip_prefix(':') else {
            continue;
        };
        let rest = rest.trim_start_matches([' ', '\t']);
        let value = if let Some(r) = rest.strip_prefix('"') {
            r.split('"').next().unwrap_or("")
        } else if let Some(r) = rest.strip_prefix('\'') {
            r.split('\'').next().unwrap_or("")
        } else if rest.starts_with(['>', '|']) {
            // A YAML block scalar: the value is on the next non-empty line.
            rest.lines()
                .skip(1)
                .map(str::trim)
                .find(|l| !l.is_empty())
                .unwrap_or("")
        } else {
            let end = rest.find([',', '}', ']', '\n', '\r']).unwrap_or(rest.len());
            let v = &rest[..end];
            v.split(" #").next().unwrap_or(v).trim()
        };
        if !value.starts_with('#') {
            out.push(value);
        }
    }
    out
}

/// `a/./b/../c` → `a/c` (purely lexical; `None` if it climbs above the start).
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    Some(out)
}

/// Loads the previous and the current document in parallel, each as [`load_document`] does
/// (parsing two multi-megabyte files one after the other doubles the wait on a machine with
/// two cores or more), on the engines' pool ([`specpress_apispec::parallel`]), whose threads have
/// room for the parser's nesting budget. Without a pool, the two are loaded one after the other.
///
/// Errors are those of [`load_document`], naming the file that failed; when both fail, the
/// previous file's error is returned, as a sequential load would report it.
pub fn load_pair(previous: &Path, current: &Path) -> Result<(Document, Document), CliError> {
    let (p, c) =
        specpress_apispec::parallel::join(|| load_document(previous), || load_document(current));
    Ok((p?, c?))
}

/// Reads a document and every file its `$ref`s name (recursively), then parses it.
pub fn load_document(path: &Path) -> Result<Document, CliError> {
    let shown = path.display().to_string();
    let root_text = read_text(path)?;
    let root_path = std::fs::canonicalize(path).map_err(|source| CliError::Io {
        path: shown.clone(),
        source,
    })?;
    let base = root_path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let mut references: Vec<Reference> = Vec::new();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    // (relative location of the file that holds the refs, index of its text in `references`,
    // `None` for the root document).
    let mut queue: VecDeque<(PathBuf, Option<usize>)> = VecDeque::new();
    queue.push_back((PathBuf::new(), None));
    while let Some((rel_file, index)) = queue.pop_front() {
        let dir = match index {
            None => PathBuf::new(),
            Some(_) => rel_file.parent().map(Path::to_path_buf).unwrap_or_default(),
        };
        let text = match index {
            None => root_text.as_str(),
            Some(i) => references.get(i).map_or("", |r| r.content.as_str()),
        };
        let mut found: Vec<Reference> = Vec::new();
        for r in scan_refs(text) {
            let file_part = r.split('#').next().unwrap_or("");
            if file_part.is_empty() || file_part.contains("://") || file_part.starts_with("urn:") {
                continue;
            }
            let outside = || CliError::Outside {
                path: shown.clone(),
                reference: r.to_string(),
                root: base.display().to_string(),
            };
            // A `$ref` that names no existing file (prose that looks like one, a typo) is
            // left to the spec engine, which reports it as unresolved if it is really used.
            // One that names an existing file outside the root directory is refused.
            if Path::new(file_part).is_absolute() {
                if Path::new(file_part).is_file() {
                    return Err(outside());
                }
                continue;
            }
            let Some(rel) = normalize(&dir.join(file_part)) else {
                if base.join(&dir).join(file_part).is_file() {
                    return Err(outside());
                }
                continue;
            };
            if !base.join(&rel).is_file() {
                continue;
            }
            if !seen.insert(rel.clone()) {
                continue;
            }
            if references.len() + found.len() >= MAX_FILES {
                return Err(CliError::TooManyFiles {
                    path: shown,
                    limit: MAX_FILES,
                });
            }
            let full = base.join(&rel);
            let canonical = std::fs::canonicalize(&full).map_err(|source| CliError::Io {
                path: full.display().to_string(),
                source,
            })?;
            if !canonical.starts_with(&base) {
                return Err(outside());
            }
            let content = read_text(&canonical)?;
            let location = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            queue.push_back((rel, Some(references.len() + found.len())));
            found.push(Reference {
                location,
                content,
                name: None,
            });
        }
        references.extend(found);
    }
    let limits = Limits {
        max_bytes: MAX_FILE_BYTES,
        max_nodes: 20_000_000,
        max_refs: 1_000_000,
        max_files: MAX_FILES,
        ..Limits::default()
    };
    specpress_apispec::parse_owned(root_text, references, &limits).map_err(|e| CliError::Invalid {
        path: shown,
        message: e
            .diagnostics
            .iter()
            .map(|d| format!("  - {d}"))
            .collect::<Vec<_>>()
            .join("\n"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_refs_are_found_in_json_block_and_flow_yaml_and_local_ones_skipped() {
        let text = r##"{"$ref": "a.json#/x"}
schema:
  $ref: ./b.yaml#/components/schemas/B   # comment
items: {$ref: 'c.yaml', x: 1}
other: {"$ref":"#/local"}
folded:
  $ref: >-
    long.yaml#/components/schemas/Long
local-folded:
  $ref: >-
    #/components/schemas/Local
"##;
        assert_eq!(
            scan_refs(text),
            vec![
                "a.json#/x",
                "./b.yaml#/components/schemas/B",
                "c.yaml",
                "long.yaml#/components/schemas/Long"
            ]
        );
    }

    #[test]
    fn dollar_signs_that_do_not_start_a_ref_are_skipped() {
        let text = "{\"$schema\": \"x\", \"price\": \"$5\", \"a\": {\"$$ref\": \"one.json\"}, \"b\": {\"$ref\": \"two.json\"}}\nc: {$ref: 'three.yaml'}\nend: $";
        assert_eq!(scan_refs(text), vec!["one.json", "two.json", "three.yaml"]);
        assert!(scan_refs("$").is_empty());
        assert!(scan_refs("€$ref").is_empty());
        assert_eq!(scan_refs("€$ref: 'x.yaml'"), vec!["x.yaml"]);
    }

    #[test]
    fn normalize_refuses_to_climb_above_the_root() {
        assert_eq!(
            normalize(Path::new("a/./b/../c.yaml")),
            Some(PathBuf::from("a/c.yaml"))
        );
        assert_eq!(normalize(Path::new("../x.yaml")), None);
    }
}
