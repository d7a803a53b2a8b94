//! KataGo's words for rulesets: the names and JSON objects that
//! `kata-set-rules`, `kata-get-rules` and the `rules` field of KataGo's JSON
//! analysis queries use, mapped to kosumi's presets. What no preset plays
//! (stone scoring, a button, KataGo's other tax rules) is refused by name.

use crate::go::rules::{HandicapBonus, Ko, Rules, Scoring, Suicide};
use serde_json::{Map, Value, json};
use std::fmt;

/// Rules kosumi cannot play, with the reason.
#[derive(Clone, Debug, PartialEq)]
pub struct UnknownRules(pub String);

impl fmt::Display for UnknownRules {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The preset a KataGo rules name stands for: KataGo's `chinese` (and its
/// OGS and KGS variants), `japanese` and `korean`, `tromp-taylor`, `aga`,
/// `new-zealand`, and kosumi's own preset names. Case, spaces and
/// underscores are as KataGo reads them (`new zealand` = `new-zealand`).
pub fn from_name(name: &str) -> Result<Rules, UnknownRules> {
    preset_name(name).map(|p| Rules::preset(p).expect("a preset's own name"))
}

/// The name of the preset a KataGo rules name stands for (see
/// [`from_name`]).
pub fn preset_name(name: &str) -> Result<&'static str, UnknownRules> {
    let normal = name.trim().to_ascii_lowercase().replace([' ', '_'], "-");
    let preset = match normal.as_str() {
        "chinese-ogs" | "chinese-kgs" => "chinese",
        "korean" => "japanese",
        "newzealand" => "new-zealand",
        "tromptaylor" => "tromp-taylor",
        other => other,
    };
    Rules::canonical_preset_name(preset).ok_or_else(|| {
        UnknownRules(format!(
            "no kosumi ruleset matches '{name}' (korean, chinese-ogs, chinese-kgs, or a preset: {})",
            Rules::preset_names().collect::<Vec<_>>().join(", ")
        ))
    })
}

/// The rules of a KataGo rules value: a name, or a JSON object whose given
/// fields (`ko`, `scoring`, `suicide`, `tax`, `whiteHandicapBonus`,
/// `hasButton`) all match one preset's, as `to_json` writes them. KataGo's
/// other spelling `score` is read as `scoring`, and `taxRule` (which kosumi
/// once wrote) as `tax`.
pub fn from_json(value: &Value) -> Result<Rules, UnknownRules> {
    let object = match value {
        Value::String(name) => return from_name(name),
        Value::Object(object) => object,
        _ => return Err(UnknownRules("rules must be a name or an object".into())),
    };
    const KNOWN: [&str; 7] = [
        "ko",
        "scoring",
        "suicide",
        "tax",
        "whiteHandicapBonus",
        "hasButton",
        "friendlyPassOk",
    ];
    const SPELLINGS: [(&str, &str); 2] = [("score", "scoring"), ("taxRule", "tax")];
    let mut given = Map::new();
    for (key, v) in object {
        let key = SPELLINGS
            .iter()
            .find(|(other, _)| other == key)
            .map_or(key.as_str(), |(_, k)| k);
        if !KNOWN.contains(&key) && key != "komi" {
            return Err(UnknownRules(format!("unknown rules field '{key}'")));
        }
        given.insert(key.to_string(), v.clone());
    }
    let object = &given;
    let matches = |preset: &Map<String, Value>| {
        KNOWN
            .iter()
            .filter(|&&k| k != "friendlyPassOk")
            .all(|&k| object.get(k).is_none_or(|v| same(v, &preset[k])))
    };
    Rules::preset_names()
        .filter_map(Rules::preset)
        .find(|r| match fields(r) {
            Value::Object(preset) => matches(&preset),
            _ => false,
        })
        .ok_or_else(|| {
            UnknownRules(format!(
                "no kosumi ruleset matches the rules {value} (presets: {})",
                Rules::preset_names().collect::<Vec<_>>().join(", ")
            ))
        })
}

/// Whether a given field equals a preset's: strings without regard to
/// case, anything else exactly.
fn same(given: &Value, preset: &Value) -> bool {
    match (given, preset) {
        (Value::String(a), Value::String(b)) => a.eq_ignore_ascii_case(b),
        (a, b) => a == b,
    }
}

/// The rules as KataGo's `kata-get-rules` writes them, with `komi`.
pub fn to_json(rules: &Rules, komi: f64) -> Value {
    let mut value = fields(rules);
    value["komi"] = json!(komi);
    value
}

/// KataGo's fields for `rules`, komi aside.
fn fields(rules: &Rules) -> Value {
    let ko = match rules.ko {
        Ko::Simple => "SIMPLE",
        Ko::Positional => "POSITIONAL",
        Ko::Situational => "SITUATIONAL",
    };
    let territory = rules.scoring == Scoring::Territory;
    let bonus = match rules.handicap_bonus {
        HandicapBonus::None => "0",
        HandicapBonus::N => "N",
        HandicapBonus::NMinusOne => "N-1",
    };
    json!({
        "friendlyPassOk": !territory,
        "hasButton": false,
        "ko": ko,
        "scoring": if territory { "TERRITORY" } else { "AREA" },
        "suicide": rules.suicide != Suicide::Forbidden,
        "tax": if territory { "SEKI" } else { "NONE" },
        "whiteHandicapBonus": bonus,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn katago_names_map_to_presets() {
        assert_eq!(from_name("Chinese-OGS").unwrap().name, "chinese");
        assert_eq!(from_name("korean").unwrap().name, "japanese");
        assert_eq!(from_name("new zealand").unwrap().name, "new-zealand");
        assert_eq!(from_name("tromp_taylor").unwrap().name, "tromp-taylor");
        let err = from_name("stone_scoring").unwrap_err();
        assert!(err.0.contains("stone_scoring"), "{err}");
    }

    #[test]
    fn every_preset_is_read_back_from_its_json() {
        for name in Rules::preset_names() {
            let rules = Rules::preset(name).unwrap();
            let back = from_json(&to_json(&rules, 6.5)).unwrap();
            // Presets KataGo cannot tell apart read back as the first of them.
            assert_eq!(fields(&back), fields(&rules), "{name}");
        }
    }

    #[test]
    fn objects_with_fields_no_preset_has_are_refused() {
        assert!(from_json(&json!({"scoring": "AREA", "hasButton": true})).is_err());
        assert!(from_json(&json!({"ko": "SIMPLE", "tax": "ALL"})).is_err());
        // KataGo's own spellings, as LizzieYzy sends them.
        let lizzieyzy = json!({"friendlyPassOk": true, "hasButton": false, "ko": "POSITIONAL",
            "scoring": "AREA", "suicide": false, "tax": "NONE", "whiteHandicapBonus": "N"});
        assert_eq!(from_json(&lizzieyzy).unwrap().scoring, Scoring::Area);
        assert_eq!(
            from_json(&json!({"score": "TERRITORY", "taxRule": "SEKI"}))
                .unwrap()
                .scoring,
            Scoring::Territory
        );
        assert!(from_json(&json!({"colour": "blue"})).is_err());
        assert!(from_json(&json!(7)).is_err());
        assert_eq!(
            from_json(&json!({"scoring": "territory"})).unwrap().scoring,
            Scoring::Territory
        );
    }
}
