//! The backend chosen at start, as a user's command line meets it: a GPU
//! asked for where there is none (or in a build without the GPU backend)
//! is one clear line and exit 2, never a panic; `auto` plays on the CPU,
//! saying at most once why there is no GPU. On a machine whose GPU
//! answers (the device check), the GPU is used instead and the refusals
//! are not looked for.

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs kosumi with `args`, `input` on stdin: exit code, stdout, stderr.
fn kosumi(args: &[&str], input: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kosumi"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kosumi starts");
    // A kosumi that refuses its command line ends before reading.
    let _ = child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes());
    let out = child.wait_with_output().expect("kosumi ends");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// Whether a GPU answers here: `--backend cuda` starts.
fn gpu_here() -> bool {
    kosumi(&["--backend", "cuda"], "quit\n").0 == 0
}

#[test]
fn a_gpu_asked_for_where_there_is_none_is_one_line_and_exit_2() {
    if gpu_here() {
        eprintln!("a GPU answers here: skipped");
        return;
    }
    for args in [
        &["--backend", "cuda"][..],
        &["--backend", "cuda", "--gpu", "1"],
        &["--backend", "cpu", "--gpu", "1"],
        &["--precision", "f16"],
    ] {
        let (code, out, err) = kosumi(args, "genmove b\nquit\n");
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("kosumi: --"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let (_, _, err) = kosumi(&["--backend", "cuda"], "");
    if cfg!(feature = "cuda") {
        assert!(
            err.contains("is not on this machine") || err.contains("GPU"),
            "{err}"
        );
    } else {
        assert!(err.contains("built without a GPU backend"), "{err}");
    }
}

#[test]
fn auto_plays_on_the_cpu_and_says_why_at_most_once() {
    if gpu_here() {
        eprintln!("a GPU answers here: skipped");
        return;
    }
    let (code, out, err) = kosumi(&["--playouts", "8"], "genmove b\ngenmove w\nquit\n");
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.matches("= ").count(), 3, "{out}");
    let said = err.lines().filter(|l| l.contains("no GPU")).count();
    // A build with the GPU backend says why it is not used; one without
    // says nothing.
    assert_eq!(said, usize::from(cfg!(feature = "cuda")), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // A GPU named (a config made for a GPU machine) is said, and the
    // game goes on on the CPU.
    let (code, out, err) = kosumi(&["--gpu", "3", "--playouts", "8"], "genmove b\nquit\n");
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("= "), "{out}");
    assert_eq!(
        err.lines().filter(|l| l.contains("no GPU")).count(),
        1,
        "{err}"
    );
}

#[test]
fn a_gpu_machines_katago_config_analyses_on_the_cpu() {
    if gpu_here() {
        eprintln!("a GPU answers here: skipped");
        return;
    }
    // KaTrain's Local engine with a config written for a GPU machine:
    // the GPU's keys are wishes, said and set aside, never a refusal (the
    // server threads become the passes a GPU would run at once).
    let config = std::env::temp_dir().join(format!("kosumi-gpu-cfg-{}.cfg", std::process::id()));
    std::fs::write(
        &config,
        "cudaDeviceToUse = 0\ncudaUseFP16 = true\nnnMaxBatchSize = 64\n\
         numNNServerThreadsPerModel = 2\ncudaUseNHWC = auto\nopenclUseFP16 = true\n\
         maxVisits = 8\n",
    )
    .unwrap();
    let query = r#"{"id":"q","moves":[["B","D4"]],"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9,"maxVisits":8}"#;
    let (code, out, err) = kosumi(
        &[
            "analysis",
            "-config",
            config.to_str().unwrap(),
            "-override-config",
            "cudaUseFP16=true",
        ],
        &format!("{query}\n"),
    );
    std::fs::remove_file(&config).unwrap();
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(r#""id":"q""#) && out.contains("rootInfo"),
        "{out}"
    );
    assert_eq!(
        err.lines().filter(|l| l.contains("cudaUseFP16")).count(),
        1,
        "{err}"
    );
    assert!(
        err.lines().any(|l| l.contains("set aside")
            && l.contains("cudaUseNHWC")
            && l.contains("openclUseFP16")
            && !l.contains("numNNServerThreadsPerModel")),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn gpu_error_reads_its_options_and_refuses_before_making_positions() {
    // Refused at once, whatever the count: nothing is made first.
    for n in ["0", "100001", "18446744073709551615"] {
        let (code, out, err) = kosumi(&["gpu-error", "--positions", n], "");
        assert_eq!(code, 2, "{n}: {err}");
        assert!(out.is_empty() && err.contains("1..=100000"), "{n}: {err}");
    }
    // --model is one of the nets: a missing file is named.
    let (code, _, err) = kosumi(&["gpu-error", "--model", "/no/such/net.bin.gz"], "");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("/no/such/net.bin.gz"), "{err}");
    let (code, _, err) = kosumi(&["gpu-error", "--precision", "bf16"], "");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("bf16"), "{err}");
    if !gpu_here() {
        // At once, however many positions are asked: the refusal (after,
        // in a build with the GPU backend, `auto`'s one line of why the
        // networks run on the CPU).
        let (code, _, err) = kosumi(&["gpu-error", "--positions", "100000"], "");
        assert_eq!(code, 2, "{err}");
        assert!(err.lines().count() <= 2, "{err}");
        assert!(
            err.lines()
                .last()
                .is_some_and(|l| l.starts_with("kosumi: gpu-error: ")),
            "{err}"
        );
    }
}
