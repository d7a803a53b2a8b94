//! The networks a command line asks for, set up before any front end
//! starts, on the backends its options were held to
//! ([`crate::nn::Options::check`]): the network (`--nn`, `--model`, or the
//! embedded one) and a human-like net (`--human-model`). What the files
//! refuse comes back as the message to print, naming the option it came
//! from.

use crate::nn::{Backends, Evaluator};
use std::path::Path;

/// The network `--nn` (`on`) and `--model` ask for on `backends`: none
/// with `--nn off`, the embedded one without a model; the reason where
/// the file does not load or the two contradict each other.
pub fn network(
    nn: bool,
    model: Option<&Path>,
    backends: &Backends,
) -> Result<Option<Evaluator>, String> {
    match (nn, model) {
        (false, Some(_)) => Err("--model names a network and --nn off asks for none".into()),
        (false, None) => Ok(None),
        (true, Some(path)) => Evaluator::load_on(path, backends)
            .map(Some)
            .map_err(|e| format!("--model {}: {e}", path.display())),
        (true, None) => Ok(Some(Evaluator::embedded_on(backends))),
    }
}

/// The human-like net `--human-model` names, beside a network
/// (`with_network`); the reason where it does not load. A net that reads
/// no profile is taken with a warning.
pub fn human_network(
    path: &Path,
    with_network: bool,
    backends: &Backends,
) -> Result<Evaluator, String> {
    if !with_network {
        return Err("--human-model goes beside a network (--nn off asks for none)".into());
    }
    let net = Evaluator::load_on(path, backends)
        .map_err(|e| format!("--human-model {}: {e}", path.display()))?;
    if !net.is_human() {
        log::warn!(
            "--human-model {}: this net reads no profile (no metadata encoder)",
            path.display()
        );
    }
    Ok(net)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_with_no_network_asked_for_is_refused_and_none_is_none() {
        let backends = Backends::default();
        let err = network(false, Some(Path::new("x.bin.gz")), &backends).unwrap_err();
        assert!(err.contains("--nn off"), "{err}");
        assert!(network(false, None, &backends).unwrap().is_none());
        let err = network(true, Some(Path::new("/no/such/net.bin.gz")), &backends).unwrap_err();
        assert!(err.starts_with("--model /no/such/net.bin.gz: "), "{err}");
        let err = human_network(Path::new("h.bin.gz"), false, &backends).unwrap_err();
        assert!(err.contains("beside a network"), "{err}");
    }
}
