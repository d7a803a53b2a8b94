//! Options set by name from text — the dice's (`aleago-option`) and the
//! phantom game's conventions (`phantom-option`): the reader of on/off
//! values and the typed error both report.

use std::fmt;

/// Why an option was not set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SettingError {
    /// No option of that name; `known` lists the names.
    Unknown { name: String, known: &'static str },
    /// A value the option does not take; `choices` says which it does.
    BadValue {
        name: String,
        value: String,
        choices: &'static str,
    },
}

impl fmt::Display for SettingError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            SettingError::Unknown { name, known } => {
                write!(f, "unknown option '{name}' ({known})")
            }
            SettingError::BadValue {
                name,
                value,
                choices,
            } => write!(f, "{name} takes {choices}, not '{value}'"),
        }
    }
}

impl std::error::Error for SettingError {}

impl SettingError {
    pub fn bad_value(name: &str, value: &str, choices: &'static str) -> SettingError {
        SettingError::BadValue {
            name: name.to_string(),
            value: value.to_string(),
            choices,
        }
    }
}

/// `on`, `yes`, `true` or `off`, `no`, `false`, any case, for option `name`.
pub fn on_off(name: &str, value: &str) -> Result<bool, SettingError> {
    match value.to_ascii_lowercase().as_str() {
        "on" | "yes" | "true" => Ok(true),
        "off" | "no" | "false" => Ok(false),
        _ => Err(SettingError::bad_value(name, value, "on or off")),
    }
}

/// The words of an option's value: `on` or `off`.
pub fn on_off_word(on: bool) -> &'static str {
    if on { "on" } else { "off" }
}
