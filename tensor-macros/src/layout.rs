//! The module layout rule of both crates (issue 34): no two modules import each other. A
//! module is a file (`lower/nests.rs` is `lower::nests`, a `mod.rs` its folder); it uses
//! another when it names a path `crate::a::b` or `super::b` outside comments and outside
//! test-only files. Orchestrating files use the files of their concern, never the reverse.
#![cfg(test)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module path (`lower::nests`; the crate root is "") → file text without comment lines.
fn modules(root: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("a source folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(root).unwrap().with_extension("");
            let mut parts: Vec<String> = rel
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
                parts.pop();
            }
            // Test-only files may use anything.
            if parts.iter().any(|p| p == "tests" || p.ends_with("_tests")) {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("a source file");
            let code: String = text
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect::<Vec<_>>()
                .join("\n");
            out.insert(parts.join("::"), code);
        }
    }
    out
}

/// The module paths that `prefix` followed by a path in `code` names (`crate::` or
/// `super::`), resolved to the longest existing module.
fn uses(module: &str, code: &str, all: &BTreeMap<String, String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let parent: Vec<&str> = module.split("::").filter(|p| !p.is_empty()).collect();
    for (keyword, base) in [
        ("crate::", Vec::new()),
        ("super::", parent[..parent.len().saturating_sub(1)].to_vec()),
    ] {
        for (at, _) in code.match_indices(keyword) {
            // Only a path's start: not `tensorgraph_core::crate::` (which does not exist) or
            // a longer identifier ending in `super`.
            if code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let rest = &code[at + keyword.len()..];
            let segments: Vec<&str> = rest
                .split("::")
                .map(|s| {
                    s.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .next()
                        .unwrap_or("")
                })
                .take_while(|s| !s.is_empty() && s.chars().next().is_some_and(|c| c.is_lowercase()))
                .collect();
            let mut path: Vec<&str> = base.clone();
            let mut best = base.join("::");
            for s in segments {
                path.push(s);
                let candidate = path.join("::");
                if all.contains_key(&candidate) {
                    best = candidate;
                } else {
                    break;
                }
            }
            if best != module {
                out.insert(best);
            }
        }
    }
    out
}

fn two_way_imports(root: &Path) -> Vec<(String, String)> {
    let all = modules(root);
    let graph: BTreeMap<String, BTreeSet<String>> = all
        .iter()
        .map(|(m, code)| (m.clone(), uses(m, code, &all)))
        .collect();
    let mut pairs = Vec::new();
    for (a, targets) in &graph {
        for b in targets {
            // A parent declares its children (`mod x;`) and re-exports; only a file that
            // names another's items counts, and the crate root ("") re-exports everything.
            if a.is_empty() || b.is_empty() {
                continue;
            }
            if a < b && graph.get(b).is_some_and(|t| t.contains(a)) {
                pairs.push((a.clone(), b.clone()));
            }
        }
    }
    pairs
}

#[test]
fn no_two_modules_import_each_other() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    for root in [here.join("src"), here.join("../tensor-core/src")] {
        let pairs = two_way_imports(&root);
        assert!(
            pairs.is_empty(),
            "{}: modules that import each other: {pairs:?}",
            root.display()
        );
    }
    // The check sees a two-way import when there is one.
    let dir = std::env::temp_dir().join(format!("tg_layout_{}", std::process::id()));
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::write(dir.join("a/mod.rs"), "use crate::b::g;\nfn f() {}\n").unwrap();
    std::fs::write(dir.join("b.rs"), "use crate::a::f;\nfn g() {}\n").unwrap();
    assert_eq!(
        two_way_imports(&dir),
        vec![("a".to_string(), "b".to_string())]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
