//! Go knowledge that is not the rules, read by the Monte Carlo search and
//! the network's inputs: tactical reading ([`tactics`]: ladders, atari
//! escapes), 3×3 shapes ([`patterns`]) and the learned move prediction
//! ([`prediction`]: Coulom's generalized Bradley–Terry model, its features
//! and the built-in table). Its trainer is a tool (`tools::train_patterns`).

pub mod patterns;
pub mod prediction;
pub mod tactics;
