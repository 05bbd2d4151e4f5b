//! The house's rules, checked on the source: a file imports only from its
//! own layer or the layers below it (README, "Architecture"), the two
//! faces (`protocol`, `tools`) never import each other, and no two files
//! import each other (but a module and its own submodule, which sees its
//! private items). Imports are read from the text of `src/` (`use`
//! declarations and `crate::`/`super::` paths outside comments and test
//! modules), resolved to the file that defines the module they name.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layers, bottom up, by path prefix under `src/`.
const LAYERS: [(&str, usize); 12] = [
    ("game.rs", 0),
    ("tuning.rs", 0),
    ("memory.rs", 0),
    ("games/", 1),
    ("network.rs", 1),
    ("harness.rs", 1),
    ("search/", 2),
    ("engine/", 3),
    ("protocol/", 4),
    ("tools/", 4),
    ("main.rs", 5),
    ("lib.rs", 5),
];

/// A source file: its path under `src/` and its module path.
struct Source {
    path: String,
    module: Vec<String>,
    text: String,
}

fn read_sources(dir: &Path, sources: &mut Vec<Source>) {
    for entry in std::fs::read_dir(dir).expect("src is readable") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            read_sources(&path, sources);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path
                .strip_prefix("src")
                .expect("under src")
                .to_string_lossy()
                .replace('\\', "/");
            let mut module: Vec<String> = relative
                .trim_end_matches(".rs")
                .split('/')
                .map(str::to_owned)
                .collect();
            if module.last().is_some_and(|m| m == "mod") || relative == "lib.rs" {
                module.pop();
            }
            if relative == "main.rs" {
                module = vec!["<main>".into()];
            }
            let text = std::fs::read_to_string(&path).expect("a readable file");
            sources.push(Source {
                path: relative,
                module,
                text,
            });
        }
    }
}

/// The code of a file without comments and without the items marked
/// `#[cfg(test)]` (a `mod tests { … }` block or a `mod testing;` line).
fn code_of(text: &str) -> String {
    let mut kept = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim_start().starts_with("//") {
            continue;
        }
        if line.trim() != "#[cfg(test)]" {
            kept.push(line);
            continue;
        }
        // Skip the item: to its `;`, or to the brace that closes it.
        let mut depth = 0usize;
        for item_line in lines.by_ref() {
            depth += item_line.matches('{').count();
            depth = depth.saturating_sub(item_line.matches('}').count());
            let ends = item_line.trim_end().ends_with(';') || item_line.trim_end().ends_with('}');
            if depth == 0 && ends {
                break;
            }
        }
    }
    kept.join("\n")
}

/// Module paths named by the file: `crate::a::b…`, `super::…`, and in a
/// module file, `child::…` of its own child modules.
fn named_paths(source: &Source, children: &BTreeSet<String>) -> Vec<Vec<String>> {
    let code = code_of(&source.text);
    let mut paths = Vec::new();
    let words: Vec<&str> = code
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
        .filter(|w| w.contains("::"))
        .collect();
    for word in words {
        let segments: Vec<String> = word
            .split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        let Some(first) = segments.first() else {
            continue;
        };
        let absolute = match first.as_str() {
            "crate" => segments[1..].to_vec(),
            "super" => {
                let mut module = source.module.clone();
                let mut rest = &segments[..];
                while rest.first().is_some_and(|s| s == "super") {
                    module.pop();
                    rest = &rest[1..];
                }
                module.extend(rest.iter().cloned());
                module
            }
            name if children.contains(name) => {
                let mut module = source.module.clone();
                module.extend(segments.iter().cloned());
                module
            }
            _ => continue,
        };
        paths.push(absolute);
    }
    // `use crate::a::{b, c::d}`: the names in braces under the prefix.
    for (at, _) in code.match_indices("::{") {
        let head_start = code[..at]
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .map_or(0, |i| i + 1);
        let head = &code[head_start..at];
        if !(head.starts_with("crate") || head.starts_with("super")) {
            continue;
        }
        // The braces' contents, nested braces included.
        let mut depth = 0usize;
        let mut close = None;
        for (offset, c) in code[at + 2..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(at + 2 + offset);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(close) = close else {
            continue;
        };
        let inner = &code[at + 3..close];
        // Top-level items only: `b::{c, d}` counts as `b`.
        let mut items = Vec::new();
        let (mut level, mut start) = (0usize, 0);
        for (i, c) in inner.char_indices() {
            match c {
                '{' => level += 1,
                '}' => level = level.saturating_sub(1),
                ',' if level == 0 => {
                    items.push(&inner[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        items.push(&inner[start..]);
        for item in items {
            let name = item.trim().split("::").next().unwrap_or("");
            if !name.is_empty() && name != "self" {
                let joined = format!("{head}::{name}");
                paths.extend(named_paths_of_word(source, &joined));
            }
        }
    }
    paths
}

fn named_paths_of_word(source: &Source, word: &str) -> Vec<Vec<String>> {
    let fake = Source {
        path: source.path.clone(),
        module: source.module.clone(),
        text: word.to_owned(),
    };
    named_paths(&fake, &BTreeSet::new())
}

/// The file defining the longest prefix of `path` that is a module.
fn resolve<'a>(path: &[String], modules: &'a BTreeMap<Vec<String>, String>) -> Option<&'a String> {
    (1..=path.len())
        .rev()
        .find_map(|n| modules.get(&path[..n].to_vec()))
}

fn layer(path: &str) -> (usize, &'static str) {
    LAYERS
        .iter()
        .find(|(prefix, _)| path.starts_with(prefix))
        .map(|&(prefix, rank)| (rank, prefix))
        .unwrap_or_else(|| panic!("{path} is in no layer: add it to LAYERS"))
}

/// Whether one file is the module of which the other is a direct
/// submodule. Such a pair may refer to each other: a submodule sees its
/// parent's private items and often extends its type (a game's
/// `features.rs` adds the network inputs to the game's own struct).
fn parent_and_child(a: &str, b: &str, sources: &[Source]) -> bool {
    let module = |path: &str| {
        sources
            .iter()
            .find(|s| s.path == path)
            .map(|s| s.module.clone())
            .unwrap_or_default()
    };
    let (a, b) = (module(a), module(b));
    let child_of = |child: &Vec<String>, parent: &Vec<String>| {
        child.len() == parent.len() + 1 && child.starts_with(parent)
    };
    child_of(&a, &b) || child_of(&b, &a)
}

#[test]
fn imports_go_down_the_layers_and_no_two_files_import_each_other() {
    let mut sources = Vec::new();
    read_sources(Path::new("src"), &mut sources);
    let modules: BTreeMap<Vec<String>, String> = sources
        .iter()
        .map(|s| (s.module.clone(), s.path.clone()))
        .collect();
    let mut imports = BTreeSet::new();
    for source in &sources {
        let children: BTreeSet<String> = modules
            .keys()
            .filter(|m| m.len() == source.module.len() + 1 && m.starts_with(&source.module))
            .filter_map(|m| m.last().cloned())
            .collect();
        for path in named_paths(source, &children) {
            if let Some(target) = resolve(&path, &modules)
                && *target != source.path
                && !path.is_empty()
            {
                imports.insert((source.path.clone(), target.clone()));
            }
        }
    }
    assert!(
        imports.len() > 100,
        "the reader found too few imports: {imports:?}"
    );
    let mut broken = Vec::new();
    for (from, to) in &imports {
        let ((rank_from, face_from), (rank_to, face_to)) = (layer(from), layer(to));
        // `lib.rs` declares every module; `main.rs` may use any.
        if from == "lib.rs" {
            continue;
        }
        if rank_to > rank_from {
            broken.push(format!("{from} imports {to}, a higher layer"));
        }
        if rank_from == 4 && rank_to == 4 && face_from != face_to {
            broken.push(format!("{from} imports {to}: the faces stay apart"));
        }
        if imports.contains(&(to.clone(), from.clone()))
            && from < to
            && !parent_and_child(from, to, &sources)
        {
            broken.push(format!("{from} and {to} import each other"));
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}
