//! The `openspiel` preset against DeepMind OpenSpiel's `phantom_go`:
//! `scripts/openspiel_phantom.py` plays random games with the same tries on
//! both referees and compares every try (accepted or refused, the turn,
//! both views, the end, the winner).
//!
//! Needs a Python that imports `pyspiel` (`pip install open-spiel`): the
//! one named by KOSUMI_OPENSPIEL_PYTHON, or `python3`. Without it the test
//! says so and passes, unless KOSUMI_REQUIRE_OPENSPIEL is set (as `.ci/run`
//! does, after installing the package in `target/openspiel-venv`).

use std::path::Path;
use std::process::Command;

fn python() -> Option<String> {
    let candidate = std::env::var("KOSUMI_OPENSPIEL_PYTHON").unwrap_or_else(|_| "python3".into());
    let imports = Command::new(&candidate)
        .args(["-c", "import pyspiel"])
        .output()
        .is_ok_and(|o| o.status.success());
    if imports {
        return Some(candidate);
    }
    if std::env::var_os("KOSUMI_REQUIRE_OPENSPIEL").is_some() {
        panic!("{candidate} cannot import pyspiel (pip install open-spiel)");
    }
    eprintln!("no Python with open-spiel ({candidate}): the OpenSpiel comparison is skipped");
    None
}

#[test]
fn the_openspiel_preset_agrees_with_openspiel_on_every_try() {
    let Some(python) = python() else {
        return;
    };
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(python)
        .arg(here.join("scripts/openspiel_phantom.py"))
        .args([
            "--kosumi",
            env!("CARGO_BIN_EXE_kosumi"),
            "--games",
            "60",
            "--seed",
            "7",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    println!("{text}");
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("no disagreement"), "{text}");
}
