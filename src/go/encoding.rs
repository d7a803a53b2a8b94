//! A game record's bytes as text. The encoding is, in this order: a byte
//! order mark's (the Encoding Standard lets it win over any label), the one
//! the root node's `CA[]` names (by the Encoding Standard's labels:
//! Latin-1, GB2312/GBK/GB18030, Big5, Shift_JIS, EUC-KR, ...), UTF-8 where
//! the bytes are UTF-8, and otherwise the one Firefox's detector
//! (chardetng) finds in them, as KaTrain and Lizzie detect a record's.
//! Bytes are never replaced: a record whose `CA[]` is belied by its bytes
//! is read in the encoding detected where that reads every byte, and text
//! that no encoding reads is refused with where it goes wrong.

use encoding_rs::{Encoding, UTF_8};

/// How a record's encoding was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// A byte order mark at the start.
    Bom,
    /// The root node's `CA[]`.
    Declared,
    /// Neither: the bytes are UTF-8.
    Utf8,
    /// Detected in the bytes; the `CA[]` label they belie, if any.
    Detected { declared: Option<String> },
}

/// A record's text and the encoding it was read in.
#[derive(Clone, Debug)]
pub struct Decoded {
    pub text: String,
    pub encoding: &'static Encoding,
    pub found: Found,
}

impl Decoded {
    /// What a user should be told of the reading, where the encoding was
    /// a guess: the encoding detected, and the label it overrode.
    pub fn note(&self) -> Option<String> {
        let name = self.encoding.name();
        match &self.found {
            Found::Detected { declared: None } => Some(format!(
                "the record names no encoding (CA[]) and is not UTF-8: read as {name}, detected"
            )),
            Found::Detected {
                declared: Some(label),
            } => Some(format!(
                "the record's CA[{label}] does not read its bytes: read as {name}, detected"
            )),
            _ => None,
        }
    }
}

/// `bytes` as text, in the encoding found as the module says; why not
/// where none reads them.
pub fn decode(bytes: &[u8]) -> Result<Decoded, String> {
    if let Some((encoding, length)) = Encoding::for_bom(bytes) {
        let text = strictly(encoding, &bytes[length..]).map_err(|at| {
            format!(
                "byte {} is not {} as the byte order mark says",
                at + length,
                encoding.name()
            )
        })?;
        return Ok(Decoded {
            text,
            encoding,
            found: Found::Bom,
        });
    }
    let declared = match root_charset(bytes) {
        Some(label) => Some((
            Encoding::for_label(label.trim().as_bytes())
                .ok_or_else(|| format!("CA[{label}]: an encoding kosumi does not know"))?,
            label,
        )),
        None => None,
    };
    let first = declared.map_or(UTF_8, |(encoding, _)| encoding);
    let failed_at = match strictly(first, bytes) {
        Ok(text) => {
            let found = if declared.is_some() {
                Found::Declared
            } else {
                Found::Utf8
            };
            return Ok(Decoded {
                text,
                encoding: first,
                found,
            });
        }
        Err(at) => at,
    };
    let detected = detect(bytes);
    let said = declared.map_or_else(String::new, |(_, label)| format!("CA[{label}]: "));
    if detected == first {
        return Err(format!("{said}byte {failed_at} is not {}", first.name()));
    }
    let text = strictly(detected, bytes).map_err(|at| {
        format!(
            "{said}byte {failed_at} is not {}, and byte {at} not {}, the encoding detected",
            first.name(),
            detected.name()
        )
    })?;
    Ok(Decoded {
        text,
        encoding: detected,
        found: Found::Detected {
            declared: declared.map(|(_, label)| label.to_string()),
        },
    })
}

/// `bytes` in `encoding`, or the offset of the first byte it does not read.
fn strictly(encoding: &'static Encoding, bytes: &[u8]) -> Result<String, usize> {
    match encoding.decode_without_bom_handling_and_without_replacement(bytes) {
        Some(text) => Ok(text.into_owned()),
        None => {
            // The decoder again, to say where: it stops at the first
            // malformed sequence.
            let mut decoder = encoding.new_decoder_without_bom_handling();
            let mut out = String::with_capacity(
                decoder
                    .max_utf8_buffer_length_without_replacement(bytes.len())
                    .unwrap_or(bytes.len() * 3),
            );
            match decoder.decode_to_string_without_replacement(bytes, &mut out, true) {
                (encoding_rs::DecoderResult::Malformed(bad, after), read) => {
                    Err(read.saturating_sub(bad as usize + after as usize))
                }
                (_, read) => Err(read),
            }
        }
    }
}

/// The encoding chardetng finds in `bytes` (UTF-8 among them).
fn detect(bytes: &[u8]) -> &'static Encoding {
    let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
    detector.feed(bytes, true);
    detector.guess(None, chardetng::Utf8Detection::Allow)
}

/// The value of the root node's `CA[]`, if it has one. The root's
/// properties are read as SGF's grammar has them (an identifier, then its
/// bracketed values, `\` escaping the next byte) up to the next node or
/// tree; every encoding that `CA[]` may name writes that grammar's bytes
/// as ASCII does. A `CA[` in a later node or inside a value is no label.
fn root_charset(bytes: &[u8]) -> Option<&str> {
    let mut at = skip_space(bytes, bytes.iter().position(|&b| b == b'(')? + 1);
    if bytes.get(at) != Some(&b';') {
        return None;
    }
    at += 1;
    loop {
        at = skip_space(bytes, at);
        let start = at;
        while bytes.get(at).is_some_and(u8::is_ascii_alphabetic) {
            at += 1;
        }
        if at == start {
            return None; // the root's end: `;`, `(`, `)` or junk
        }
        let identifier = &bytes[start..at];
        let mut first = None;
        loop {
            at = skip_space(bytes, at);
            if bytes.get(at) != Some(&b'[') {
                break;
            }
            let value_start = at + 1;
            at = value_start;
            loop {
                match bytes.get(at)? {
                    b'\\' => at += 2,
                    b']' => break,
                    _ => at += 1,
                }
            }
            first.get_or_insert(&bytes[value_start..at.min(bytes.len())]);
            at += 1;
        }
        if identifier == b"CA" {
            return first.and_then(|v| std::str::from_utf8(&v[..v.len().min(64)]).ok());
        }
    }
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(label: &str, text: &str) -> Vec<u8> {
        let encoding = Encoding::for_label(label.as_bytes()).unwrap();
        let (bytes, _, unmappable) = encoding.encode(text);
        assert!(!unmappable, "{label}");
        bytes.into_owned()
    }

    #[test]
    fn a_record_without_ca_is_utf8_where_it_can_be_and_detected_otherwise() {
        let utf8 = "(;SZ[9]PB[Jörg]PW[柯洁])";
        let read = decode(utf8.as_bytes()).unwrap();
        assert_eq!((read.text.as_str(), &read.found), (utf8, &Found::Utf8));
        assert_eq!(read.note(), None);
        // Records as older Japanese, Chinese and Korean programs wrote
        // them, with no CA[]: each found, and said.
        for (label, names) in [
            (
                "Shift_JIS",
                "PB[井山裕太]PW[一力遼]EV[第48期棋聖戦]C[黒の中押し勝ち。素晴らしい対局でした]",
            ),
            (
                "GBK",
                "PB[柯洁]PW[朴廷桓]EV[第22届三星杯决赛]C[黑中盘胜。这是一盘精彩的对局]",
            ),
            (
                "EUC-KR",
                "PB[신진서]PW[박정환]EV[한국바둑리그]C[흑 불계승. 아주 좋은 대국이었습니다]",
            ),
            ("windows-1252", "PB[Jörg Müller]PW[François Lévêque]"),
        ] {
            let text = format!("(;GM[1]FF[4]SZ[19]{names};B[pd];W[dp])");
            let read = decode(&encoded(label, &text)).unwrap();
            assert_eq!(read.text, text, "{label}");
            assert_eq!(read.encoding.name(), label);
            assert_eq!(read.found, Found::Detected { declared: None });
            assert!(read.note().unwrap().contains(label), "{:?}", read.note());
        }
    }

    #[test]
    fn a_ca_belied_by_its_bytes_gives_way_to_the_encoding_detected() {
        // The common lie: CA[UTF-8] over Latin-1 names.
        let read = decode(b"(;CA[UTF-8]SZ[9]PB[J\xe9r\xf4me]PW[Fran\xe7ois])").unwrap();
        assert_eq!(read.text, "(;CA[UTF-8]SZ[9]PB[Jérôme]PW[François])");
        let declared = Some("UTF-8".to_string());
        assert_eq!(read.found, Found::Detected { declared });
        assert!(read.note().unwrap().contains("CA[UTF-8]"));
        // A CA[] that reads its bytes is taken as it is.
        let read = decode(&encoded("Big5", "(;CA[Big5]PB[柯潔])")).unwrap();
        assert_eq!(
            (read.text.as_str(), read.found),
            ("(;CA[Big5]PB[柯潔])", Found::Declared)
        );
    }

    #[test]
    fn only_the_root_nodes_ca_is_a_label_and_a_bom_wins_over_it() {
        // A comment that mentions CA[] and a later node's CA[] are no label.
        let text = "(;SZ[9]C[save it as CA[UTF-8\\] please];CA[Big5]B[ee])";
        let read = decode(text.as_bytes()).unwrap();
        assert_eq!((read.text.as_str(), &read.found), (text, &Found::Utf8));
        assert_eq!(root_charset(b"(;SZ[9]XCA[koi9]PB[a])"), None);
        assert_eq!(
            root_charset(b" ( ; FF[4] CA [Shift_JIS] SZ[9])"),
            Some("Shift_JIS")
        );
        // A UTF-8 byte order mark wins over the CA[] that names another.
        let marked = "\u{feff}(;CA[Shift_JIS]PB[井山裕太])";
        let read = decode(marked.as_bytes()).unwrap();
        assert_eq!(read.text, "(;CA[Shift_JIS]PB[井山裕太])");
        assert_eq!(read.found, Found::Bom);
    }

    #[test]
    fn text_that_no_encoding_reads_is_refused_by_where_it_goes_wrong() {
        let err = decode(b"\xef\xbb\xbf(;PB[J\xe9r])").unwrap_err();
        assert!(err.contains("byte 9 is not UTF-8"), "{err}");
        let err = decode(b"(;CA[klingon]SZ[9])").unwrap_err();
        assert!(err.contains("CA[klingon]"), "{err}");
        // A record cut off inside the root's value has no label.
        assert_eq!(root_charset(b"(;CA[UTF-8"), None);
    }
}
