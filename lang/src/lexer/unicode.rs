//! Characters that can deceive a reader: bidirectional controls, invisible
//! characters, and names that mix look-alike scripts.

/// Bidirectional-text controls that can make source display in an order
/// different from the one it is parsed in ("Trojan Source").
pub(super) fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// Characters that draw nothing (Unicode's default-ignorable code points and
/// the Hangul fillers, which render as blank), which could hide text inside
/// a name.
pub(super) fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{17B4}'
            | '\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
}

/// Line breaks other than `\n` (and `\r\n`): a carriage return alone, the
/// Unicode line and paragraph separators, next-line, vertical tab and form
/// feed. Editors and terminals may break lines where Writ does not, so text
/// after one can look like code while being inside a comment, or the
/// reverse.
pub(super) fn is_misleading_break(c: char) -> bool {
    matches!(
        c,
        '\r' | '\u{2028}' | '\u{2029}' | '\u{0085}' | '\u{000B}' | '\u{000C}'
    )
}

/// The script buckets that matter for look-alike letters.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Script {
    Latin,
    Greek,
    Cyrillic,
    Fullwidth,
    Other,
}

fn script_of(c: char) -> Option<Script> {
    if !c.is_alphabetic() {
        return None;
    }
    Some(match c as u32 {
        0x41..=0x5A | 0x61..=0x7A | 0xC0..=0x24F | 0x1E00..=0x1EFF => Script::Latin,
        0x370..=0x3FF | 0x1F00..=0x1FFF => Script::Greek,
        0x400..=0x52F | 0x1C80..=0x1C8F | 0x2DE0..=0x2DFF | 0xA640..=0xA69F => Script::Cyrillic,
        0xFF21..=0xFF3A | 0xFF41..=0xFF5A => Script::Fullwidth,
        _ => Script::Other,
    })
}

/// If `name` mixes two of the scripts whose letters look alike, the two.
pub(super) fn mixed_scripts(name: &str) -> Option<(Script, Script)> {
    let mut first: Option<Script> = None;
    for s in name.chars().filter_map(script_of) {
        if s == Script::Other {
            continue;
        }
        match first {
            None => first = Some(s),
            Some(f) if f != s => return Some((f, s)),
            Some(_) => {}
        }
    }
    None
}

pub(super) fn script_name(s: Script) -> &'static str {
    match s {
        Script::Latin => "Latin",
        Script::Greek => "Greek",
        Script::Cyrillic => "Cyrillic",
        Script::Fullwidth => "full-width Latin",
        Script::Other => "other",
    }
}

/// A character as shown in a message: itself if it is visible, escaped if
/// not.
pub(super) fn shown(c: char) -> String {
    if c.is_control() || c.is_whitespace() || is_invisible(c) {
        c.escape_debug().to_string()
    } else {
        c.to_string()
    }
}

/// A name for a misleading line break, for messages.
pub(super) fn break_name(c: char) -> &'static str {
    match c {
        '\r' => "a carriage return not followed by a line feed",
        '\u{2028}' => "line separator",
        '\u{2029}' => "paragraph separator",
        '\u{0085}' => "next line",
        '\u{000B}' => "vertical tab",
        '\u{000C}' => "form feed",
        _ => "line break",
    }
}
