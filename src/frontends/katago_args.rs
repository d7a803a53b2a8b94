//! KataGo's own command line, for the programs that start an engine the way
//! they start KataGo: `kosumi gtp -model FILE -config FILE` and `kosumi
//! analysis -model FILE -config FILE [-override-config K=V,...]` (KaTrain's
//! "Local engine" settings start exactly the latter). The config file is
//! KataGo's (`key = value` lines, `#` comments; later lines and then the
//! overrides win); the keys that mean something to kosumi (`KEYS`) become
//! kosumi's own options, and the others are named once on stderr as
//! ignored; the search's refinements (`useLcbForSelection`, …) pass as
//! `--search-param NAME=VALUE`. The result is kosumi's argument list, which the usual command
//! line reader then checks.

use super::katago_rules;
use crate::search::PUCT_SETTINGS;
use std::ffi::OsString;

/// Which of KataGo's programs the command line asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Program {
    Gtp,
    Analysis,
}

/// Where a KataGo setting goes among kosumi's options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    /// An option before the subcommand (for both programs).
    Engine(&'static str),
    /// An option of the GTP engine only (the analysis engine's queries set
    /// their own).
    Gtp(&'static str),
    /// An option of `kosumi analysis`.
    Analysis(&'static str),
}

/// A KataGo config key kosumi honours: where it goes, and how its text
/// becomes the option's value (`Some("")`: a flag given without a value;
/// `None`: the option left out).
struct Key {
    name: &'static str,
    target: Target,
    value: fn(&str) -> Result<Option<String>, String>,
}

fn same(v: &str) -> Result<Option<String>, String> {
    Ok(Some(v.to_string()))
}

/// The keys kosumi honours.
const KEYS: &[Key] = &[
    Key {
        name: "humanSLProfile",
        target: Target::Engine("--human-profile"),
        value: same,
    },
    Key {
        name: "maxVisits",
        target: Target::Gtp("--playouts"),
        value: same,
    },
    Key {
        name: "maxPlayouts",
        target: Target::Gtp("--playouts"),
        value: same,
    },
    Key {
        name: "maxTime",
        target: Target::Gtp("--time"),
        value: same,
    },
    Key {
        name: "maxVisits",
        target: Target::Analysis("--max-visits"),
        value: same,
    },
    Key {
        name: "maxTime",
        target: Target::Analysis("--max-time"),
        value: same,
    },
    Key {
        name: "numSearchThreads",
        target: Target::Engine("--threads"),
        value: same,
    },
    Key {
        name: "numAnalysisThreads",
        target: Target::Analysis("--positions"),
        value: same,
    },
    Key {
        name: "reportAnalysisWinratesAs",
        target: Target::Analysis("--report-as"),
        value: |v| Ok(Some(v.to_ascii_lowercase())),
    },
    Key {
        name: "rules",
        target: Target::Engine("--rules"),
        value: |v| {
            katago_rules::preset_name(v)
                .map(|p| Some(p.to_string()))
                .map_err(|e| e.0)
        },
    },
    Key {
        name: "ponderingEnabled",
        target: Target::Gtp("--ponder"),
        value: |v| match v {
            "true" => Ok(Some(String::new())),
            "false" => Ok(None),
            _ => Err(format!("ponderingEnabled must be true or false, not '{v}'")),
        },
    },
    Key {
        name: "allowResignation",
        target: Target::Gtp("--resign"),
        value: |v| match v {
            "true" => Ok(None),
            "false" => Ok(Some("0".to_string())),
            _ => Err(format!("allowResignation must be true or false, not '{v}'")),
        },
    },
];

/// The largest config file read (KataGo's example configs are a few
/// hundred lines, under 30 KiB).
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// `key = value` lines of a KataGo config, `#` starting a comment.
pub fn parse_config(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if line.starts_with('@') {
            return Err(format!(
                "line {}: '{line}': kosumi does not follow @include",
                n + 1
            ));
        }
        let (key, value) = line
            .split_once('=')
            .ok_or_else(|| format!("line {}: '{line}' is not key = value", n + 1))?;
        out.push((key.trim().to_string(), value.trim().to_string()));
    }
    Ok(out)
}

/// KataGo's `-override-config` text: `key=value` pairs separated by commas.
pub fn parse_overrides(text: &str) -> Result<Vec<(String, String)>, String> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|pair| {
            pair.split_once('=')
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .ok_or_else(|| format!("-override-config: '{pair}' is not key=value"))
        })
        .collect()
}

/// Whether `args` (the program's, its name first) are KataGo's form: a
/// first word `gtp` or `analysis` followed by KataGo's single-dash options.
pub fn is_katago_form(args: &[OsString]) -> Option<Program> {
    let program = match args.get(1)?.to_str()? {
        "gtp" => Program::Gtp,
        "analysis" => Program::Analysis,
        _ => return None,
    };
    args[2..]
        .iter()
        .any(|a| {
            matches!(
                a.to_str(),
                Some("-model" | "-config" | "-override-config" | "-human-model")
            )
        })
        .then_some(program)
}

/// What KataGo's command line comes to: kosumi's arguments, and the config
/// keys kosumi does not use (to be named as ignored).
#[derive(Debug, PartialEq)]
pub struct Translated {
    pub args: Vec<OsString>,
    pub ignored: Vec<String>,
}

/// kosumi's arguments for KataGo's `args` (as [`is_katago_form`] found
/// them), reading the config files with `read`.
pub fn translate(
    args: &[OsString],
    program: Program,
    read: impl Fn(&std::path::Path) -> Result<String, String>,
) -> Result<Translated, String> {
    let mut model = None;
    let mut human_model = None;
    let mut settings: Vec<(String, String)> = Vec::new();
    let mut ignored = Vec::new();
    let mut rest = args[2..].iter();
    while let Some(flag) = rest.next() {
        let flag = flag.to_string_lossy();
        let mut value = || {
            rest.next()
                .cloned()
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        match flag.as_ref() {
            "-model" => model = Some(value()?),
            "-human-model" => human_model = Some(value()?),
            "-config" => {
                let path = value()?;
                let text = read(std::path::Path::new(&path))?;
                settings.extend(
                    parse_config(&text).map_err(|e| format!("{}: {e}", path.to_string_lossy()))?,
                );
            }
            "-override-config" => {
                settings.extend(parse_overrides(&value()?.to_string_lossy())?);
            }
            other => return Err(format!("unknown KataGo option '{other}'")),
        }
    }
    // The last value of each key wins, as in KataGo.
    let mut last: Vec<(String, String)> = Vec::new();
    for (k, v) in settings {
        last.retain(|(key, _)| *key != k);
        last.push((k, v));
    }
    let mut engine: Vec<OsString> = Vec::new();
    let mut sub: Vec<OsString> = Vec::new();
    if let Some(m) = model {
        engine.push("--model".into());
        engine.push(m);
    }
    if let Some(m) = human_model {
        engine.push("--human-model".into());
        engine.push(m);
    }
    for (key, value) in &last {
        // The search's refinements keep KataGo's names on kosumi's side.
        if PUCT_SETTINGS.iter().any(|s| s.name == key) {
            engine.push("--search-param".into());
            engine.push(format!("{key}={value}").into());
            continue;
        }
        let targets: Vec<&Key> = KEYS
            .iter()
            .filter(|k| k.name == key)
            .filter(|k| {
                matches!(
                    (k.target, program),
                    (Target::Engine(_), _)
                        | (Target::Gtp(_), Program::Gtp)
                        | (Target::Analysis(_), Program::Analysis)
                )
            })
            .collect();
        if targets.is_empty() {
            ignored.push(key.clone());
        }
        for k in targets {
            let Some(v) = (k.value)(value).map_err(|e| format!("{key}: {e}"))? else {
                continue;
            };
            let (list, option) = match k.target {
                Target::Engine(o) | Target::Gtp(o) => (&mut engine, o),
                Target::Analysis(o) => (&mut sub, o),
            };
            list.push(option.into());
            if !v.is_empty() {
                list.push(v.into());
            }
        }
    }
    let mut out = vec![args[0].clone()];
    out.extend(engine);
    if program == Program::Analysis {
        out.push("analysis".into());
        out.extend(sub);
    }
    Ok(Translated { args: out, ignored })
}

/// Reads a config file of at most a mebibyte (`MAX_CONFIG_BYTES`).
pub fn read_config_file(path: &std::path::Path) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !meta.is_file() || meta.len() > MAX_CONFIG_BYTES {
        return Err(format!(
            "{}: not a regular file of at most {} KiB",
            path.display(),
            MAX_CONFIG_BYTES >> 10
        ));
    }
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn katrains_local_engine_command_becomes_kosumis() {
        let args = os(&[
            "kosumi",
            "analysis",
            "-model",
            "net.bin.gz",
            "-config",
            "analysis.cfg",
            "-override-config",
            "homeDataDir=/home/a/.katrain",
        ]);
        assert_eq!(is_katago_form(&args), Some(Program::Analysis));
        let config = "# KaTrain's\nreportAnalysisWinratesAs = BLACK\nmaxVisits = 500\n\
                      numAnalysisThreads = 12\nnumSearchThreads = 8\nnnCacheSizePowerOfTwo = 20\n";
        let t = translate(&args, Program::Analysis, |_| Ok(config.to_string())).unwrap();
        assert_eq!(
            t.args,
            os(&[
                "kosumi",
                "--model",
                "net.bin.gz",
                "--threads",
                "8",
                "analysis",
                "--report-as",
                "black",
                "--max-visits",
                "500",
                "--positions",
                "12",
            ])
        );
        assert_eq!(t.ignored, vec!["nnCacheSizePowerOfTwo", "homeDataDir"]);
        // KaTrain's human strategy: a human-like net beside, its profile.
        let args = os(&[
            "kosumi",
            "analysis",
            "-model",
            "net.bin.gz",
            "-human-model",
            "human.bin.gz",
            "-config",
            "analysis.cfg",
            "-override-config",
            "humanSLProfile=preaz_5k",
        ]);
        let t = translate(&args, Program::Analysis, |_| Ok(String::new())).unwrap();
        assert_eq!(
            t.args,
            os(&[
                "kosumi",
                "--model",
                "net.bin.gz",
                "--human-model",
                "human.bin.gz",
                "--human-profile",
                "preaz_5k",
                "analysis",
            ])
        );
        assert!(t.ignored.is_empty(), "{:?}", t.ignored);
    }

    #[test]
    fn gtp_takes_the_budget_rules_and_resignation_and_overrides_win() {
        let args = os(&[
            "kosumi",
            "gtp",
            "-config",
            "gtp.cfg",
            "-override-config",
            "maxVisits=50, rules=japanese",
        ]);
        let config = "rules = tromp-taylor\nmaxVisits = 500\nallowResignation = false\n";
        let t = translate(&args, Program::Gtp, |_| Ok(config.to_string())).unwrap();
        assert_eq!(
            t.args,
            os(&[
                "kosumi",
                "--resign",
                "0",
                "--playouts",
                "50",
                "--rules",
                "japanese"
            ])
        );
        assert!(t.ignored.is_empty());
    }

    #[test]
    fn the_search_refinements_keep_katagos_names() {
        let args = os(&[
            "kosumi",
            "gtp",
            "-override-config",
            "useLcbForSelection=false,subtreeValueBiasFactor=0.2",
        ]);
        let t = translate(&args, Program::Gtp, |_| Ok(String::new())).unwrap();
        assert_eq!(
            t.args,
            os(&[
                "kosumi",
                "--search-param",
                "useLcbForSelection=false",
                "--search-param",
                "subtreeValueBiasFactor=0.2",
            ])
        );
        assert!(t.ignored.is_empty());
    }

    #[test]
    fn bad_forms_are_refused_with_the_reason() {
        let args = os(&["kosumi", "gtp", "-model"]);
        let err = translate(&args, Program::Gtp, |_| Ok(String::new())).unwrap_err();
        assert!(err.contains("-model needs a value"), "{err}");
        let args = os(&["kosumi", "gtp", "-config", "c"]);
        let err = translate(&args, Program::Gtp, |_| Ok("rules = stone".into())).unwrap_err();
        assert!(err.starts_with("rules:"), "{err}");
        assert!(parse_config("just words").is_err());
        assert!(parse_overrides("a=1,b").is_err());
        // Not KataGo's form: kosumi's own subcommand.
        assert_eq!(
            is_katago_form(&os(&["kosumi", "analysis", "--positions", "2"])),
            None
        );
    }
}
