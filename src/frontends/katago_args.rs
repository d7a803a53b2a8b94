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

/// A whole number from 1 up (visits, threads).
fn count(v: &str) -> Result<Option<String>, String> {
    match v.parse::<u64>() {
        Ok(n) if n >= 1 => Ok(Some(n.to_string())),
        _ => Err("a whole number, at least 1".into()),
    }
}

/// Seconds: a number above 0.
fn seconds(v: &str) -> Result<Option<String>, String> {
    match v.parse::<f64>() {
        Ok(t) if t.is_finite() && t > 0.0 => Ok(Some(v.to_string())),
        _ => Err("a number of seconds above 0".into()),
    }
}

/// A human-like net's profile by KataGo's name (`rank_5k`, `preaz_1d`,
/// `proyear_1990`, ...).
fn profile(v: &str) -> Result<Option<String>, String> {
    crate::nn::HumanProfile::parse(v).map(|_| Some(v.to_string()))
}

/// A GPU's number, from 0.
fn device(v: &str) -> Result<Option<String>, String> {
    v.parse::<u32>()
        .map(|n| Some(n.to_string()))
        .map_err(|_| "a GPU's number (0, 1, ...)".into())
}

/// The keys kosumi honours.
const KEYS: &[Key] = &[
    Key {
        name: "cudaDeviceToUse",
        target: Target::Engine("--gpu"),
        value: device,
    },
    Key {
        name: "gpuToUse",
        target: Target::Engine("--gpu"),
        value: device,
    },
    Key {
        name: "cudaDeviceToUseThread0",
        target: Target::Engine("--gpu"),
        value: device,
    },
    Key {
        name: "cudaGpuToUse",
        target: Target::Engine("--gpu"),
        value: device,
    },
    // A preference for the GPU, not an order: where no GPU runs the
    // networks, it is said once and set aside (KataGo's CPU build takes
    // the same file).
    Key {
        name: "cudaUseFP16",
        target: Target::Engine("--gpu-precision"),
        value: |v| match enabled(v) {
            Some(None) => Ok(None),
            Some(Some(true)) => Ok(Some("f16".into())),
            Some(Some(false)) => Ok(Some("f32".into())),
            None => Err("auto, true or false (or KataGo's 1/0, yes/no, enabled/disabled)".into()),
        },
    },
    Key {
        name: "nnMaxBatchSize",
        target: Target::Engine("--nn-max-batch"),
        value: |v| match v.parse::<u64>() {
            Ok(n) if (1..=256).contains(&n) => Ok(Some(n.to_string())),
            _ => Err("a whole number from 1 to 256".into()),
        },
    },
    // KataGo's server threads a GPU: kosumi's passes in flight on one.
    Key {
        name: "numNNServerThreadsPerModel",
        target: Target::Engine("--gpu-passes"),
        value: |v| match v.parse::<u64>() {
            Ok(n) if n >= 1 => Ok(Some(n.min(4).to_string())),
            _ => Err("a whole number from 1".into()),
        },
    },
    Key {
        name: "humanSLProfile",
        target: Target::Engine("--human-profile"),
        value: profile,
    },
    Key {
        name: "maxVisits",
        target: Target::Gtp("--playouts"),
        value: count,
    },
    Key {
        name: "maxPlayouts",
        target: Target::Gtp("--playouts"),
        value: count,
    },
    Key {
        name: "maxTime",
        target: Target::Gtp("--time"),
        value: seconds,
    },
    Key {
        name: "maxVisits",
        target: Target::Analysis("--max-visits"),
        value: count,
    },
    Key {
        name: "maxTime",
        target: Target::Analysis("--max-time"),
        value: seconds,
    },
    Key {
        name: "numSearchThreads",
        target: Target::Engine("--threads"),
        value: count,
    },
    Key {
        name: "numAnalysisThreads",
        target: Target::Analysis("--positions"),
        value: count,
    },
    Key {
        name: "reportAnalysisWinratesAs",
        target: Target::Analysis("--report-as"),
        value: |v| match v.to_ascii_lowercase().as_str() {
            w @ ("black" | "white" | "sidetomove") => Ok(Some(w.to_string())),
            _ => Err("BLACK, WHITE or SIDETOMOVE".into()),
        },
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
        value: |v| match boolean(v) {
            Some(true) => Ok(Some(String::new())),
            Some(false) => Ok(None),
            None => Err(format!("ponderingEnabled must be true or false, not '{v}'")),
        },
    },
    Key {
        name: "allowResignation",
        target: Target::Gtp("--resign"),
        value: |v| match boolean(v) {
            Some(true) => Ok(None),
            Some(false) => Ok(Some("0".to_string())),
            None => Err(format!("allowResignation must be true or false, not '{v}'")),
        },
    },
];

/// A boolean as KataGo's config reads one: `true` or `false`, in any case.
fn boolean(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// KataGo's `enabled_t` (its `cudaUseFP16`): `auto` (`Some(None)`), or
/// on or off in any of its spellings, in any case.
fn enabled(v: &str) -> Option<Option<bool>> {
    match v.trim().to_ascii_lowercase().as_str() {
        "auto" => Some(None),
        "1" | "t" | "true" | "enabled" | "y" | "yes" => Some(Some(true)),
        "0" | "f" | "false" | "disabled" | "n" | "no" => Some(Some(false)),
        _ => None,
    }
}

/// The keys of KataGo's GPU backends that kosumi's GPU backend decides
/// for itself (the layout, another GPU a thread, TensorRT's, OpenCL's,
/// Metal's and Core ML's settings): set aside, and said so, whatever
/// runs the networks. A key is one of these where it starts so.
const OTHER_BACKENDS: &[&str] = &[
    "cudaUseNHWC",
    "cudaDeviceToUseThread",
    "trt",
    "opencl",
    "metal",
    "coreml",
];

/// The largest config file read (KataGo's example configs are a few
/// hundred lines, under 30 KiB).
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// One setting as given, and where: `FILE line N` or `-override-config`.
#[derive(Clone, Debug, PartialEq)]
pub struct Setting {
    pub key: String,
    pub value: String,
    pub origin: String,
}

/// `key = value` lines of a KataGo config (`file`, for the origins), `#`
/// starting a comment. A line ends at a line feed, a carriage return and
/// line feed, or a carriage return alone (an old Mac's); a byte order mark
/// (Notepad's, at the start or where files were joined) is no part of a
/// key or value.
pub fn parse_config(text: &str, file: &str) -> Result<Vec<Setting>, String> {
    let mut out = Vec::new();
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let blank = |c: char| c.is_whitespace() || c == '\u{feff}';
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim_matches(blank);
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
        let (key, value) = (key.trim_matches(blank), value.trim_matches(blank));
        if key.is_empty() {
            return Err(format!("line {}: '{line}' has no key before '='", n + 1));
        }
        out.push(Setting {
            key: key.to_string(),
            value: value.to_string(),
            origin: format!("{file} line {}", n + 1),
        });
    }
    Ok(out)
}

/// KataGo's `-override-config` text: `key=value` pairs separated by commas.
pub fn parse_overrides(text: &str) -> Result<Vec<Setting>, String> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|pair| match pair.split_once('=') {
            None => Err(format!("-override-config: '{pair}' is not key=value")),
            Some((k, _)) if k.trim().is_empty() => {
                Err(format!("-override-config: '{pair}' has no key before '='"))
            }
            Some((k, v)) => Ok(Setting {
                key: k.trim().to_string(),
                value: v.trim().to_string(),
                origin: "-override-config".into(),
            }),
        })
        .collect()
}

/// Keys given more than once in one config file, as KataGo warns of
/// them: one line a key, naming its first line, how many times it is
/// given and the last line (which counts), however often it repeats.
fn duplicates(settings: &[Setting]) -> Vec<String> {
    // (file, key) → the first origin, the last origin, the count; in the
    // order the keys first appear.
    let mut seen: std::collections::HashMap<(&str, &str), usize> = Default::default();
    let mut found: Vec<(&Setting, &Setting, usize)> = Vec::new();
    for s in settings {
        let Some((file, _)) = s.origin.rsplit_once(" line ") else {
            continue;
        };
        match seen.entry((file, s.key.as_str())) {
            std::collections::hash_map::Entry::Occupied(at) => {
                let entry = &mut found[*at.get()];
                entry.1 = s;
                entry.2 += 1;
            }
            std::collections::hash_map::Entry::Vacant(at) => {
                at.insert(found.len());
                found.push((s, s, 1));
            }
        }
    }
    found
        .into_iter()
        .filter(|&(_, _, count)| count > 1)
        .map(|(first, last, count)| match count {
            2 => format!(
                "{}: key '{}' given again at {}; the last one counts",
                first.origin, first.key, last.origin
            ),
            _ => format!(
                "{}: key '{}' given {count} times in all, the last at {}; the last one counts",
                first.origin, first.key, last.origin
            ),
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
    /// The keys of KataGo's GPU backends that kosumi's decide for
    /// themselves ([`OTHER_BACKENDS`]), to be named as set aside.
    pub set_aside: Vec<String>,
    /// What to say on stderr (keys given twice in a file).
    pub warnings: Vec<String>,
}

impl Translated {
    /// The lines to say on stderr before kosumi starts: the warnings, then
    /// the keys ignored and those set aside, each list on one line.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = self.warnings.clone();
        if !self.ignored.is_empty() {
            notes.push(format!(
                "KataGo settings ignored: {}",
                listed(&self.ignored)
            ));
        }
        if !self.set_aside.is_empty() {
            notes.push(format!(
                "KataGo's GPU settings that kosumi's backends choose for themselves, set aside: {}",
                listed(&self.set_aside)
            ));
        }
        notes
    }
}

/// Names for one line of stderr: the first twelve, then how many more.
fn listed(names: &[String]) -> String {
    const SHOWN: usize = 12;
    let mut text = names[..names.len().min(SHOWN)].join(", ");
    if names.len() > SHOWN {
        text += &format!(" and {} more", names.len() - SHOWN);
    }
    text
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
    let mut settings: Vec<Setting> = Vec::new();
    let mut ignored = Vec::new();
    let mut set_aside = Vec::new();
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
                let file = path.to_string_lossy();
                settings.extend(parse_config(&text, &file).map_err(|e| format!("{file}: {e}"))?);
            }
            "-override-config" => {
                settings.extend(parse_overrides(&value()?.to_string_lossy())?);
            }
            other => return Err(format!("unknown KataGo option '{other}'")),
        }
    }
    let warnings = duplicates(&settings);
    // The last value of each key wins, as in KataGo: each key where it
    // was last given.
    let mut at_last: std::collections::HashMap<&str, usize> = Default::default();
    for (n, s) in settings.iter().enumerate() {
        at_last.insert(&s.key, n);
    }
    let last: Vec<&Setting> = (settings.iter().enumerate())
        .filter(|&(n, s)| at_last[s.key.as_str()] == n)
        .map(|(_, s)| s)
        .collect();
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
    for &Setting { key, value, origin } in &last {
        let refused = |wants: String| format!("{origin}: {key} = {value}: {wants}");
        // The search's refinements keep KataGo's names on kosumi's side,
        // each checked here to name where it came from.
        if let Some(setting) = PUCT_SETTINGS.iter().find(|s| s.name == key) {
            (setting.set)(&mut crate::search::Puct::default(), value).map_err(refused)?;
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
            if OTHER_BACKENDS.iter().any(|prefix| key.starts_with(prefix)) {
                set_aside.push(key.clone());
            } else {
                ignored.push(key.clone());
            }
        }
        for k in targets {
            let Some(v) = (k.value)(value).map_err(refused)? else {
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
    Ok(Translated {
        args: out,
        ignored,
        set_aside,
        warnings,
    })
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
    fn the_gpu_keys_become_kosumis_gpu_options() {
        // KataGo's CUDA keys as a GPU user's config has them: the half
        // precision a wish (`--gpu-precision`, set aside without a GPU);
        // the server threads the passes in flight (at most 4); the other
        // backends' keys set aside.
        let args = os(&["kosumi", "gtp", "-model", "n.bin.gz", "-config", "gtp.cfg"]);
        let config = "cudaDeviceToUse = 1\ncudaUseFP16 = true\nnnMaxBatchSize = 64\n\
                      numNNServerThreadsPerModel = 2\ncudaUseNHWC = auto\n\
                      openclUseFP16 = true\ntrtDeviceToUseThread0 = 1\nhomeDataDir = x\n";
        let t = translate(&args, Program::Gtp, |_| Ok(config.to_string())).unwrap();
        let joined: Vec<String> = t.args.iter().map(|a| a.to_string_lossy().into()).collect();
        let joined = joined.join(" ");
        for option in [
            "--gpu 1",
            "--gpu-precision f16",
            "--nn-max-batch 64",
            "--gpu-passes 2",
        ] {
            assert!(joined.contains(option), "{option} in {joined}");
        }
        assert!(!joined.contains("--precision"), "{joined}");
        assert_eq!(
            t.set_aside,
            vec!["cudaUseNHWC", "openclUseFP16", "trtDeviceToUseThread0"]
        );
        assert_eq!(t.ignored, vec!["homeDataDir"]);
        let bad = translate(&args, Program::Gtp, |_| Ok("cudaUseFP16 = maybe\n".into()));
        assert!(bad.unwrap_err().contains("auto, true or false"));
        let bad = translate(&args, Program::Gtp, |_| Ok("nnMaxBatchSize = 0\n".into()));
        assert!(bad.unwrap_err().contains("1 to 256"));
        let many = translate(&args, Program::Gtp, |_| {
            Ok("numNNServerThreadsPerModel = 16\n".into())
        });
        let many: Vec<String> = many
            .unwrap()
            .args
            .iter()
            .map(|a| a.to_string_lossy().into())
            .collect();
        assert!(many.join(" ").contains("--gpu-passes 4"), "{many:?}");
        let bad = translate(&args, Program::Gtp, |_| {
            Ok("numNNServerThreadsPerModel = 0\n".into())
        });
        assert!(bad.unwrap_err().contains("from 1"));
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
    fn values_are_read_as_values_naming_the_file_the_line_and_the_key() {
        let args = os(&["kosumi", "gtp", "-config", "gtp.cfg"]);
        for (text, wants) in [
            (
                "maxVisits = -5",
                "gtp.cfg line 1: maxVisits = -5: a whole number",
            ),
            (
                "# c\nmaxVisits = --help",
                "gtp.cfg line 2: maxVisits = --help: a whole number",
            ),
            ("maxTime = 0", "maxTime = 0: a number of seconds above 0"),
            (
                "numSearchThreads = 1.5",
                "numSearchThreads = 1.5: a whole number",
            ),
            ("humanSLProfile = --help", "humanSLProfile = --help:"),
            (
                "useLcbForSelection = maybe",
                "gtp.cfg line 1: useLcbForSelection = maybe:",
            ),
        ] {
            let err = translate(&args, Program::Gtp, |_| Ok(text.to_string())).unwrap_err();
            assert!(err.contains(wants), "{text}: {err}");
        }
        let over = os(&["kosumi", "analysis", "-override-config", "maxVisits=-5"]);
        let err = translate(&over, Program::Analysis, |_| Ok(String::new())).unwrap_err();
        assert!(
            err.starts_with("-override-config: maxVisits = -5:"),
            "{err}"
        );
        let over = os(&[
            "kosumi",
            "analysis",
            "-override-config",
            "reportAnalysisWinratesAs=RED",
        ]);
        assert!(translate(&over, Program::Analysis, |_| Ok(String::new())).is_err());
        // A key given twice in a file is warned of, naming both lines; the
        // last one counts.
        let t = translate(&args, Program::Gtp, |_| {
            Ok("maxVisits = 10\nrules = japanese\nmaxVisits = 20\n".into())
        })
        .unwrap();
        assert_eq!(
            t.warnings,
            vec![
                "gtp.cfg line 1: key 'maxVisits' given again at gtp.cfg line 3; the last one counts"
            ]
        );
        assert!(t.args.windows(2).any(|w| w == os(&["--playouts", "20"])));
    }

    #[test]
    fn bad_forms_are_refused_with_the_reason() {
        let args = os(&["kosumi", "gtp", "-model"]);
        let err = translate(&args, Program::Gtp, |_| Ok(String::new())).unwrap_err();
        assert!(err.contains("-model needs a value"), "{err}");
        let args = os(&["kosumi", "gtp", "-config", "c"]);
        let err = translate(&args, Program::Gtp, |_| Ok("rules = stone".into())).unwrap_err();
        assert!(err.starts_with("c line 1: rules = stone:"), "{err}");
        assert!(parse_config("just words", "f").is_err());
        assert!(parse_overrides("a=1,b").is_err());
        // A key that is empty is named as such.
        let err = parse_overrides("=,=").unwrap_err();
        assert!(err.contains("no key before '='"), "{err}");
        let err = parse_config("maxVisits = 5\n = 3\n", "f").unwrap_err();
        assert_eq!(err, "line 2: '= 3' has no key before '='");
    }

    #[test]
    fn a_byte_order_mark_is_no_part_of_a_key_and_every_line_end_ends_a_line() {
        let settings = parse_config("\u{feff}maxVisits = 5\r\nrules = japanese\r\n", "f").unwrap();
        assert_eq!(settings[0].key, "maxVisits");
        assert_eq!(settings[1].value, "japanese");
        // Two files joined: the second's mark mid-text.
        let joined = parse_config("rules = japanese\n\u{feff}maxVisits = 7\n", "f").unwrap();
        assert_eq!(
            (joined[1].key.as_str(), joined[1].value.as_str()),
            ("maxVisits", "7")
        );
        // An old Mac's carriage returns alone: three lines, counted as such.
        let mac = parse_config("maxVisits = 5\rrules = aga\r\rkomi = x y\r", "f").unwrap();
        let keys: Vec<&str> = mac.iter().map(|s| s.key.as_str()).collect();
        assert_eq!(keys, ["maxVisits", "rules", "komi"]);
        assert_eq!(mac[2].origin, "f line 4");
        let err = parse_config("maxVisits = 5\rnonsense\r", "f").unwrap_err();
        assert!(
            err.starts_with("line 2: 'nonsense'") && !err.contains('\r'),
            "{err:?}"
        );
    }

    #[test]
    fn a_key_given_many_times_is_warned_of_once_with_its_count() {
        let args = os(&["kosumi", "gtp", "-config", "c"]);
        let config = "maxVisits = 5\n".repeat(40_000) + "rules = japanese\nrules = chinese\n";
        let t = translate(&args, Program::Gtp, |_| Ok(config.clone())).unwrap();
        assert_eq!(
            t.warnings,
            vec![
                "c line 1: key 'maxVisits' given 40000 times in all, the last at c line 40000; the last one counts",
                "c line 40001: key 'rules' given again at c line 40002; the last one counts",
            ]
        );
        // Not KataGo's form: kosumi's own subcommand.
        assert_eq!(
            is_katago_form(&os(&["kosumi", "analysis", "--positions", "2"])),
            None
        );
    }

    #[test]
    fn booleans_and_enabled_are_read_as_katago_reads_them() {
        for (v, b) in [
            ("true", true),
            ("TRUE", true),
            ("True", true),
            ("false", false),
            ("False", false),
        ] {
            assert_eq!(boolean(v), Some(b), "{v}");
        }
        assert_eq!(boolean("yes"), None);
        for v in ["1", "yes", "Enabled", "TRUE", "t", "Y"] {
            assert_eq!(enabled(v), Some(Some(true)), "{v}");
        }
        for v in ["0", "no", "Disabled", "False", "f", "N"] {
            assert_eq!(enabled(v), Some(Some(false)), "{v}");
        }
        assert_eq!(enabled("Auto"), Some(None));
        assert_eq!(enabled("maybe"), None);
        let args: Vec<OsString> = ["katago", "gtp", "-config", "x.cfg"]
            .iter()
            .map(OsString::from)
            .collect();
        let t = translate(&args, Program::Gtp, |_| {
            Ok("cudaUseFP16 = Yes\nponderingEnabled = True\nallowResignation = FALSE\n".into())
        })
        .unwrap();
        let joined: Vec<String> = t
            .args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let joined = joined.join(" ");
        assert!(joined.contains("--gpu-precision f16"), "{joined}");
        assert!(joined.contains("--ponder"), "{joined}");
        assert!(joined.contains("--resign 0"), "{joined}");
    }
}
