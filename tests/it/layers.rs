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
    (
        // champions: a game's end is judged by the wall's rules as it is stored, and
        // `game_over` says the verdict.
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
            "world",
            "cluster",
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
