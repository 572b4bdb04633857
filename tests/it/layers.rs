//! The layers of `ARCHITECTURE.md`, checked: each module uses only the modules below it, so
//! no arrow points back up and there is no cycle.

use std::path::Path;

/// Each module (a folder or a file under `src/`) and the modules of ours it may use.
const ALLOWED: &[(&str, &[&str])] = &[
    ("common", &[]),
    ("ayo", &[]),
    ("store", &["common", "ayo"]),
    ("config", &["common", "ayo", "store"]),
    ("house", &["common", "ayo", "config"]),
    ("metrics", &[]),
    ("cluster", &["common", "config"]),
    (
        "champions",
        &["common", "ayo", "store", "house", "config", "metrics"],
    ),
    // ratings: the results' reader "ratings", beside the wall.
    ("ratings", &["common", "ayo", "store"]),
    // tournaments: the results' reader "tournaments", and the arena's pure rules.
    ("tournaments", &["common", "ayo", "store"]),
    // reviews: rated games reviewed unasked are the ones ratings would rate.
    (
        "reviews",
        &["common", "ayo", "store", "house", "config", "ratings"],
    ),
    (
        // champions: a game's end is judged by the wall's rules as it is stored, and
        // `game_over` says the verdict; tournaments: a room pairs its arenas by their rules.
        "world",
        &[
            "common",
            "ayo",
            "store",
            "house",
            "config",
            "metrics",
            "cluster",
            "champions",
            "tournaments",
        ],
    ),
    (
        "http",
        &[
            "common",
            "ayo",
            "store",
            "house",
            "config",
            "metrics",
            "champions",
            "ratings",
            "world",
            "cluster",
            "reviews",
            "tournaments",
        ],
    ),
];

const OURS: &[&str] = &[
    "common",
    "ayo",
    "store",
    "config",
    "house",
    "metrics",
    "cluster",
    "champions",
    "reviews",
    "ratings",
    "tournaments",
    "world",
    "http",
    "app",
    "cli",
];

/// The files of module `name`: `src/name.rs`, or every file under `src/name/`.
fn files(src: &Path, name: &str) -> Vec<std::path::PathBuf> {
    let file = src.join(format!("{name}.rs"));
    if file.is_file() {
        return vec![file];
    }
    let mut found = Vec::new();
    let mut dirs = vec![src.join(name)];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("a module folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(path);
            }
        }
    }
    found
}

#[test]
fn every_module_uses_only_the_layers_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut wrong = Vec::new();
    for (module, allowed) in ALLOWED {
        for file in files(&src, module) {
            let text = std::fs::read_to_string(&file).expect("a source file");
            for other in OURS.iter().filter(|o| *o != module && !allowed.contains(o)) {
                if text.contains(&format!("crate::{other}::"))
                    || text.contains(&format!("crate::{other}}}"))
                    || text.contains(&format!("crate::{other};"))
                {
                    wrong.push(format!("{} uses {other}", file.display()));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "arrows back up: {wrong:#?}");
}

/// Every file or folder `ARCHITECTURE.md` names in code quotes exists: under the repository,
/// `src/`, a module of `src/`, `web/` or `tests/` (a name in a list under its folder's
/// heading). A file still to be made is named after the word "new".
#[test]
fn every_path_the_architecture_names_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let mut bases = vec![
        root.to_path_buf(),
        root.join("src"),
        root.join("web"),
        root.join("web/js"),
        root.join("tests"),
        root.join("tests/it"),
    ];
    for dir in ["src", "src/world", "src/http", "src/ayo", "src/store"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                bases.push(path);
            }
        }
    }
    let looks_like_a_path = |name: &str| {
        let known = [
            ".rs", ".md", ".js", ".mjs", ".toml", ".sh", ".html", ".css", ".txt", ".cfg", "/",
        ];
        !name.starts_with('/')
            && !name.contains("://")
            && !name.contains(['*', '{', '<', ' '])
            && known.iter().any(|end| name.ends_with(end))
    };
    let mut missing = Vec::new();
    for line in text.lines() {
        for (i, quoted) in line.split('`').enumerate() {
            if i % 2 == 0 || !looks_like_a_path(quoted) {
                continue;
            }
            let before: String = line.split('`').take(i).collect::<Vec<_>>().join("`");
            if before.trim_end().ends_with("new") {
                continue;
            }
            if !bases.iter().any(|base| base.join(quoted).exists()) {
                missing.push(quoted.to_owned());
            }
        }
    }
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names what is not there: {missing:?}"
    );
}

/// No two files of `src/` use each other, directly or round a loop (a module and the files
/// under it excepted: a folder's `mod.rs` declares and re-exports them). Read from the paths
/// as written (`crate::…`, `super::…`, `self::…`), outside `#[cfg(test)] mod`.
#[test]
fn no_file_of_src_uses_another_that_uses_it_back() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files: std::collections::BTreeMap<Vec<String>, String> = Default::default();
    collect(&src, &src, &mut files);
    let modules: std::collections::BTreeSet<Vec<String>> = files.keys().cloned().collect();
    let resolve = |path: &[String]| {
        (1..=path.len())
            .rev()
            .map(|n| path[..n].to_vec())
            .find(|p| modules.contains(p))
    };
    let mut uses: std::collections::BTreeMap<Vec<String>, Vec<Vec<String>>> = Default::default();
    for (module, text) in &files {
        let mut found = std::collections::BTreeSet::new();
        for path in paths_in(text) {
            let (mut base, mut rest) = match path.first().map(String::as_str) {
                Some("crate") => (Vec::new(), &path[1..]),
                _ => (module.clone(), &path[..]),
            };
            while let Some(step) = rest.first().map(String::as_str) {
                match step {
                    "super" => {
                        base.pop();
                    }
                    "self" => {}
                    _ => break,
                }
                rest = &rest[1..];
            }
            base.extend(rest.iter().cloned());
            if let Some(target) = resolve(&base) {
                let related = target.starts_with(module) || module.starts_with(&target);
                if !related {
                    found.insert(target);
                }
            }
        }
        uses.insert(module.clone(), found.into_iter().collect());
    }
    let mut loops = Vec::new();
    for (from, targets) in &uses {
        for to in targets {
            if let Some(back) = path_between(&uses, to, from) {
                loops.push(format!("{} -> {}", from.join("/"), back.join(" -> ")));
            }
        }
    }
    assert!(loops.is_empty(), "files that use each other: {loops:#?}");
}

/// Every `.rs` file under `dir` by its module path (`world/room/mod.rs` is `world/room`),
/// with its text up to its tests.
fn collect(root: &Path, dir: &Path, files: &mut std::collections::BTreeMap<Vec<String>, String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(root, &path, files);
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let relative = path.strip_prefix(root).unwrap().with_extension("");
        let mut module: Vec<String> = relative
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        if matches!(
            module.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            module.pop();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        // Up to an inline test module (`mod tests;`, a file of its own, is not one).
        let inline = text.match_indices("#[cfg(test)]\nmod ").find(|&(at, _)| {
            let line = text[at..].lines().nth(1).unwrap_or_default();
            line.trim_end().ends_with('{')
        });
        let text = &text[..inline.map_or(text.len(), |(at, _)| at)];
        let code: String = text
            .lines()
            .map(|l| l.split("//").next().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n");
        files.insert(module, code);
    }
}

/// The module paths a file's code names: `crate::a::b`, `super::c`, and each of a `use`
/// group's members (`use super::{d, e::f}`).
fn paths_in(code: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let word = |c: char| c.is_alphanumeric() || c == '_';
    for (at, _) in code.match_indices("::") {
        // The start of the path this `::` is in.
        let start = code[..at]
            .rfind(|c: char| !(word(c) || c == ':'))
            .map_or(0, |i| i + 1);
        if code[start..at].contains("::") {
            continue;
        }
        let head = &code[start..at];
        if !matches!(head, "crate" | "super" | "self") {
            continue;
        }
        let end = code[at..]
            .find(|c: char| !(word(c) || c == ':'))
            .map_or(code.len(), |i| at + i);
        let path: Vec<String> = code[start..end]
            .split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        if code[end..].starts_with('{') {
            let group = &code[end + 1..];
            let group = &group[..group.find("};").unwrap_or(group.len())];
            for member in group.split(',') {
                let member = member.trim().split(" as ").next().unwrap_or_default();
                let mut full = path.clone();
                full.extend(
                    member
                        .split("::")
                        .take_while(|s| !s.starts_with('{'))
                        .filter(|s| !s.is_empty() && s.chars().all(word))
                        .map(str::to_owned),
                );
                paths.push(full);
            }
        }
        paths.push(path);
    }
    paths
}

/// A way from `from` to `to` along `uses`, if there is one.
fn path_between(
    uses: &std::collections::BTreeMap<Vec<String>, Vec<Vec<String>>>,
    from: &[String],
    to: &[String],
) -> Option<Vec<String>> {
    let mut seen = std::collections::BTreeSet::new();
    let mut stack = vec![(from.to_vec(), vec![from.join("/")])];
    while let Some((at, way)) = stack.pop() {
        if at.as_slice() == to {
            return Some(way);
        }
        if !seen.insert(at.clone()) {
            continue;
        }
        for next in uses.get(&at).into_iter().flatten() {
            let mut further = way.clone();
            further.push(next.join("/"));
            stack.push((next.clone(), further));
        }
    }
    None
}
