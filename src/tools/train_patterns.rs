//! Fitting the strengths: `kosumi train-patterns DIR --out FILE` reads
//! strong players' games, keeps the spatial patterns played at least
//! `min_count` times, extracts every legal move's features at every
//! position, and fits the γ by minorization-maximization (Coulom 2007: one
//! group of features at a time, γ_i = (W_i + 1) / (Σ_j C_ij / E_j + 2 /
//! (γ_i + 1)), the +1 and the last term a prior of one virtual win and one
//! virtual loss against a move of strength 1). Held-out games measure the
//! result: how often the played move is the model's first choice.
//!
//! Games: files under DIR, read in name order: SGF files (one game each,
//! `SZ` 19 when absent) and the lines of the Tom collection
//! (`id<TAB>;B[pd];W[dp]...`, 19×19). Games with setup stones are skipped.

use crate::core::concurrency::spawn_or_run;
use crate::go::board::{Board, Color, Point};
use crate::go::rules::Suicide;
use crate::knowledge::prediction::Model;
use crate::knowledge::prediction::features::{GROUPS, Position, TACTICAL};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What to train on and how.
#[derive(Clone, Debug)]
pub struct Options {
    pub dir: PathBuf,
    /// Games to train on, then games held out to measure on.
    pub games: usize,
    pub holdout: usize,
    /// Keep a pattern played at least this many times.
    pub min_count: u32,
    pub iterations: usize,
    pub threads: usize,
}

/// What training found.
#[derive(Clone, Debug)]
pub struct Summary {
    pub train_positions: usize,
    pub test_positions: usize,
    pub patterns: usize,
    /// Share of held-out positions where the played move is the first
    /// choice, and where it is among the first five.
    pub first_choice: f64,
    pub top5: f64,
}

/// Trains as `options` say and writes the table to `out`, whole or not at
/// all (the caller checks `out` can be written before the minutes of
/// training: [`crate::core::files::check_writable`]); what training
/// found, or why there is no table.
pub fn train_into(options: &Options, out: &Path) -> Result<Summary, String> {
    let (model, summary) = train(options)?;
    crate::core::files::write_atomically(out, &model.to_bytes()).map_err(|e| e.to_string())?;
    Ok(summary)
}

/// One game: its size and its moves (`None` a pass).
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub size: usize,
    pub moves: Vec<(Color, Option<(usize, usize)>)>,
}

/// The moves of an SGF game or a Tom line, if it is one without setup.
pub fn parse_record(text: &str) -> Option<Record> {
    if text.contains("AB[") || text.contains("AW[") {
        return None;
    }
    let size = match text.find("SZ[") {
        Some(i) => text[i + 3..].split(']').next()?.trim().parse().ok()?,
        None => 19,
    };
    if !(2..=25).contains(&size) {
        return None;
    }
    let bytes = text.as_bytes();
    let mut moves = Vec::new();
    let mut i = 0;
    while i + 2 < bytes.len() {
        let is_move =
            bytes[i] == b';' && matches!(bytes[i + 1], b'B' | b'W') && bytes[i + 2] == b'[';
        if !is_move {
            i += 1;
            continue;
        }
        let color = if bytes[i + 1] == b'B' {
            Color::Black
        } else {
            Color::White
        };
        let end = text[i + 3..].find(']')? + i + 3;
        let v = &bytes[i + 3..end];
        let at = match v {
            [] | b"tt" => None,
            [a, b] if a.is_ascii_lowercase() && b.is_ascii_lowercase() => {
                let (x, row) = ((a - b'a') as usize, (b - b'a') as usize);
                if x >= size || row >= size {
                    return None;
                }
                Some((x, size - 1 - row))
            }
            _ => return None,
        };
        moves.push((color, at));
        i = end;
    }
    (!moves.is_empty()).then_some(Record { size, moves })
}

/// The first `want` games under `dir`, files in name order. Links are
/// followed, but every directory and file is read once however many paths
/// lead to it (a link back up the tree does not loop). Text that is not
/// UTF-8 is read as Latin-1 (older records).
pub fn read_games(dir: &Path, want: usize) -> Result<Vec<Record>, String> {
    let mut files = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(real) = std::fs::canonicalize(&d) else {
            continue; // a dangling link
        };
        if !seen.insert(real) {
            continue;
        }
        let entries = std::fs::read_dir(&d).map_err(|e| format!("{}: {e}", d.display()))?;
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(real) = std::fs::canonicalize(&path)
                && seen.insert(real)
            {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut games = Vec::new();
    for file in files {
        let Ok(bytes) = std::fs::read(&file) else {
            continue; // unreadable: not a record
        };
        let text = String::from_utf8(bytes)
            .unwrap_or_else(|e| e.into_bytes().iter().map(|&b| char::from(b)).collect());
        let is_sgf = file
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("sgf"));
        let pieces: Vec<&str> = if is_sgf {
            vec![&text]
        } else {
            text.lines().collect()
        };
        for piece in pieces {
            if games.len() == want {
                return Ok(games);
            }
            games.extend(parse_record(piece));
        }
    }
    Ok(games)
}

/// Replays `game`, calling `visit` before each move that has a legal
/// point: the position, the played point and the candidates (legal points
/// of the mover that are not its own eyes; the played one among them).
fn replay(game: &Record, mut visit: impl FnMut(&Position, Point, &[Point])) {
    let mut board = Board::new(game.size);
    let mut history: Vec<Option<Point>> = Vec::new();
    let mut candidates = Vec::new();
    for &(c, at) in &game.moves {
        let Some((x, y)) = at else {
            history.push(None);
            continue;
        };
        let p = board.point(x, y);
        if board.check(c, p, Suicide::Forbidden).is_err() || board.ko() == Some((p, c)) {
            return; // a record that breaks the rules: stop there
        }
        candidates.clear();
        candidates.extend(board.empty_points().iter().copied().filter(|&q| {
            board.check(c, q, Suicide::Forbidden).is_ok()
                && board.ko() != Some((q, c))
                && !board.is_eye(c, q)
        }));
        if candidates.contains(&p) {
            let n = history.len();
            let pos = Position::new(
                &board,
                c,
                n.checked_sub(1).and_then(|i| history[i]),
                n.checked_sub(2).and_then(|i| history[i]),
            );
            visit(&pos, p, &candidates);
        }
        board.place(c, p);
        history.push(Some(p));
    }
}

/// Positions with every candidate's features, flattened.
#[derive(Default)]
struct Data {
    features: Vec<u32>,
    /// Where each candidate's features start in `features` (one more entry
    /// at the end).
    candidates: Vec<u32>,
    /// Each position: its first candidate, its number of candidates, and
    /// the played one's index among them.
    positions: Vec<[u32; 3]>,
}

impl Data {
    fn new() -> Data {
        Data {
            candidates: vec![0],
            ..Data::default()
        }
    }

    fn add(&mut self, model: &Model, pos: &Position, played: Point, candidates: &[Point]) {
        let first = self.candidates.len() as u32 - 1;
        let mut scratch = Vec::with_capacity(8);
        let mut winner = 0;
        for (k, &q) in candidates.iter().enumerate() {
            model.features(pos, q, &mut scratch);
            self.features.extend_from_slice(&scratch);
            self.candidates.push(self.features.len() as u32);
            if q == played {
                winner = k as u32;
            }
        }
        self.positions
            .push([first, candidates.len() as u32, winner]);
    }

    fn candidate(&self, k: usize) -> &[u32] {
        &self.features[self.candidates[k] as usize..self.candidates[k + 1] as usize]
    }

    fn append(&mut self, other: Data) {
        let base_features = self.features.len() as u32;
        let base_candidates = self.candidates.len() as u32 - 1;
        self.features.extend(other.features);
        self.candidates
            .extend(other.candidates[1..].iter().map(|c| c + base_features));
        self.positions.extend(
            other
                .positions
                .into_iter()
                .map(|[f, n, w]| [f + base_candidates, n, w]),
        );
    }
}

/// Runs `work` on `threads` slices of `games` in parallel, in order.
fn parallel<T: Send>(
    games: &[Record],
    threads: usize,
    work: impl Fn(&[Record]) -> T + Sync,
) -> Vec<T> {
    let per = games.len().div_ceil(threads.max(1)).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = games
            .chunks(per)
            .map(|slice| {
                let work = &work;
                spawn_or_run(scope, move || work(slice))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a training thread"))
            .collect()
    })
}

fn extract(model: &Model, games: &[Record], threads: usize) -> Data {
    let mut data = Data::new();
    for part in parallel(games, threads, |slice| {
        let mut d = Data::new();
        for game in slice {
            replay(game, |pos, p, cands| d.add(model, pos, p, cands));
        }
        d
    }) {
        data.append(part);
    }
    data
}

/// The group of each feature: the tactical groups, then the patterns.
fn groups_of(features: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(features);
    for (g, (_, n)) in GROUPS.iter().enumerate() {
        out.extend(std::iter::repeat_n(g as u8, *n as usize));
    }
    out.resize(features, GROUPS.len() as u8);
    out
}

/// Fits the model's γ to `data` by `iterations` rounds of MM over every
/// group in turn.
fn fit(model: &mut Model, data: &Data, iterations: usize, threads: usize) {
    let n = model.gammas.len();
    let group = groups_of(n);
    let mut wins = vec![0f64; n];
    for &[first, _, winner] in &data.positions {
        for &f in data.candidate((first + winner) as usize) {
            wins[f as usize] += 1.0;
        }
    }
    let chunk = data.positions.len().div_ceil(threads.max(1)).max(1);
    for round in 0..iterations {
        let start = Instant::now();
        for g in 0..=GROUPS.len() as u8 {
            let gammas = &model.gammas;
            let parts: Vec<(Vec<f64>, f64)> = std::thread::scope(|scope| {
                let handles: Vec<_> = data
                    .positions
                    .chunks(chunk)
                    .map(|positions| {
                        let group = &group;
                        spawn_or_run(scope, move || {
                            let mut den = vec![0f64; n];
                            let mut log_likelihood = 0.0;
                            let mut strengths = Vec::new();
                            for &[first, count, winner] in positions {
                                strengths.clear();
                                let mut total = 0f64;
                                for k in first..first + count {
                                    let s: f64 = data
                                        .candidate(k as usize)
                                        .iter()
                                        .map(|&f| gammas[f as usize] as f64)
                                        .product();
                                    strengths.push(s);
                                    total += s;
                                }
                                log_likelihood += (strengths[winner as usize] / total).ln();
                                for (k, s) in (first..first + count).zip(&strengths) {
                                    for &f in data.candidate(k as usize) {
                                        if group[f as usize] == g {
                                            den[f as usize] +=
                                                s / gammas[f as usize] as f64 / total;
                                        }
                                    }
                                }
                            }
                            (den, log_likelihood)
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("a fitting thread"))
                    .collect()
            });
            let mut den = vec![0f64; n];
            let mut log_likelihood = 0.0;
            for (d, ll) in parts {
                log_likelihood += ll;
                for (a, b) in den.iter_mut().zip(d) {
                    *a += b;
                }
            }
            for f in 0..n {
                if group[f] == g {
                    let gamma = model.gammas[f] as f64;
                    let updated = (wins[f] + 1.0) / (den[f] + 2.0 / (gamma + 1.0));
                    model.gammas[f] = updated.clamp(1e-6, 1e6) as f32;
                }
            }
            if g == 0 {
                crate::say!(
                    "train: round {} log-likelihood per position {:.4}",
                    round + 1,
                    log_likelihood / data.positions.len().max(1) as f64
                );
            }
        }
        crate::say!(
            "train: round {} took {:.1}s",
            round + 1,
            start.elapsed().as_secs_f64()
        );
    }
}

/// First-choice and top-5 rates of the played move on `data`.
fn measure(model: &Model, data: &Data) -> (f64, f64) {
    let (mut first, mut top5) = (0.0, 0.0);
    for &[start, count, winner] in &data.positions {
        let strength = |k: u32| model.strength(data.candidate((start + k) as usize));
        let played = strength(winner);
        let (mut above, mut equal) = (0usize, 0usize);
        for k in 0..count {
            if k != winner {
                let s = strength(k);
                if s > played {
                    above += 1;
                } else if s == played {
                    equal += 1;
                }
            }
        }
        if above == 0 {
            first += 1.0 / (equal + 1) as f64;
        }
        if above + equal < 5 {
            top5 += 1.0;
        }
    }
    let n = data.positions.len().max(1) as f64;
    (first / n, top5 / n)
}

/// Trains a model on `options`' games.
pub fn train(options: &Options) -> Result<(Model, Summary), String> {
    let start = Instant::now();
    let all = read_games(&options.dir, options.games + options.holdout)?;
    if all.len() <= options.holdout {
        return Err(format!(
            "{} games found under {}: too few to hold {} out",
            all.len(),
            options.dir.display(),
            options.holdout
        ));
    }
    let (training, held_out) = all.split_at(all.len() - options.holdout.min(all.len() / 2));
    crate::say!(
        "train: {} games to train on, {} held out",
        training.len(),
        held_out.len()
    );
    // The patterns played often enough, every size.
    let mut counts: HashMap<u64, u32> = HashMap::new();
    for part in parallel(training, options.threads, |slice| {
        let mut counts: HashMap<u64, u32> = HashMap::new();
        for game in slice {
            replay(game, |pos, p, _| {
                for h in crate::knowledge::prediction::features::spatial(pos, p) {
                    *counts.entry(h).or_default() += 1;
                }
            });
        }
        counts
    }) {
        for (h, n) in part {
            *counts.entry(h).or_default() += n;
        }
    }
    let mut names: Vec<u64> = counts
        .into_iter()
        .filter(|&(_, n)| n >= options.min_count)
        .map(|(h, _)| h)
        .collect();
    names.sort_unstable();
    let mut model = Model::new(&names);
    crate::say!(
        "train: {} patterns played {} times or more ({:.1}s)",
        names.len(),
        options.min_count,
        start.elapsed().as_secs_f64()
    );
    let data = extract(&model, training, options.threads);
    let test = extract(&model, held_out, options.threads);
    crate::say!(
        "train: {} training positions ({} candidates), {} held out ({:.1}s)",
        data.positions.len(),
        data.candidates.len() - 1,
        test.positions.len(),
        start.elapsed().as_secs_f64()
    );
    fit(&mut model, &data, options.iterations, options.threads);
    let (first_choice, top5) = measure(&model, &test);
    let summary = Summary {
        train_positions: data.positions.len(),
        test_positions: test.positions.len(),
        patterns: names.len(),
        first_choice,
        top5,
    };
    debug_assert_eq!(model.gammas.len(), TACTICAL as usize + names.len());
    Ok((model, summary))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::prediction::features::{Group, feature};
    use rand::rngs::SmallRng;
    use rand::{RngExt, SeedableRng};

    /// Writes `n` 9×9 games of a player that answers next to the last move
    /// four times in five (else anywhere), as SGF files under `dir`.
    fn write_games(dir: &Path, n: usize) {
        let mut rng = SmallRng::seed_from_u64(17);
        for g in 0..n {
            let mut board = Board::new(9);
            let mut sgf = String::from("(;GM[1]SZ[9]");
            let mut c = Color::Black;
            let mut last: Option<Point> = None;
            for _ in 0..40 {
                let legal: Vec<Point> = board
                    .empty_points()
                    .iter()
                    .copied()
                    .filter(|&q| {
                        board.check(c, q, Suicide::Forbidden).is_ok()
                            && board.ko() != Some((q, c))
                            && !board.is_eye(c, q)
                    })
                    .collect();
                if legal.is_empty() {
                    break;
                }
                let near: Vec<Point> = legal
                    .iter()
                    .copied()
                    .filter(|&q| last.is_some_and(|l| board.neighbors(l).contains(&q)))
                    .collect();
                let pick = if !near.is_empty() && rng.random_range(0..5) < 4 {
                    near[rng.random_range(0..near.len())]
                } else {
                    legal[rng.random_range(0..legal.len())]
                };
                let (x, y) = board.coords(pick);
                sgf.push_str(&format!(
                    ";{}[{}{}]",
                    c.letter(),
                    (b'a' + x as u8) as char,
                    (b'a' + (8 - y) as u8) as char
                ));
                board.place(c, pick);
                last = Some(pick);
                c = c.opponent();
            }
            sgf.push(')');
            std::fs::write(dir.join(format!("g{g:03}.sgf")), sgf).unwrap();
        }
    }

    #[test]
    fn records_are_read_as_written() {
        let r = parse_record("12\t;B[pd];W[dp];B[tt];W[]").unwrap();
        assert_eq!(r.size, 19);
        assert_eq!(
            r.moves,
            vec![
                (Color::Black, Some((15, 15))),
                (Color::White, Some((3, 3))),
                (Color::Black, None),
                (Color::White, None)
            ]
        );
        assert!(parse_record("(;SZ[9]AB[aa];W[bb])").is_none());
        assert!(parse_record("(;SZ[9];B[zz])").is_none());
        assert_eq!(
            parse_record("(;SZ[9];B[ai])").unwrap().moves[0].1,
            Some((0, 0))
        );
    }

    #[test]
    fn links_are_read_once_and_latin1_records_count() {
        let dir = std::env::temp_dir().join(format!("kosumi-links-{}", std::process::id()));
        let sub = dir.join("sub");
        std::fs::create_dir_all(&sub).unwrap();
        write_games(&sub, 3);
        // A record with a Latin-1 comment (not UTF-8).
        let mut latin = b"(;SZ[9]C[caf\xe9];B[ee];W[cc])".to_vec();
        latin.extend_from_slice(b"\n");
        std::fs::write(dir.join("latin.sgf"), latin).unwrap();
        // Links back up the tree, and a second path to the same files.
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&dir, sub.join("up")).unwrap();
            std::os::unix::fs::symlink(&dir, sub.join("up2")).unwrap();
            std::os::unix::fs::symlink(&sub, dir.join("again")).unwrap();
        }
        let games = read_games(&dir, 1000).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(games.len(), 4, "three games once each, and the Latin-1 one");
    }

    #[test]
    fn training_learns_what_the_games_show() {
        let dir = std::env::temp_dir().join(format!("kosumi-train-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        write_games(&dir, 60);
        let options = Options {
            dir: dir.clone(),
            games: 50,
            holdout: 10,
            min_count: 3,
            iterations: 3,
            threads: 2,
        };
        let (model, summary) = train(&options).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        // Answering next to the last move (gridcular distance 2) is what
        // these players do: its strength is far above a distant move's.
        let near = model.gammas[feature(Group::LastMove, 1) as usize];
        let far = model.gammas[feature(Group::LastMove, 10) as usize];
        assert!(near > 5.0 * far, "near {near}, far {far}");
        // About 40 candidates a move and 2 to 4 of them near the last move:
        // the model finds the played move first far more often than chance.
        assert!(summary.test_positions > 200);
        assert!(summary.first_choice > 0.15, "{summary:?}");
        assert!(summary.top5 > summary.first_choice);
    }
}
