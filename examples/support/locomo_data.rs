//! Reading the LoCoMo dev set (../shared/bench/locomo-dev/README.md): session dates and the
//! README's evidence clean-up. Included with `#[path]` by the examples that need it.

use std::collections::HashSet;

use serde_json::Value;

/// "1:56 pm on 8 May, 2023" -> Unix seconds (UTC).
pub fn parse_date(s: &str) -> Option<f64> {
    let (time, date) = s.split_once(" on ")?;
    let (hm, ampm) = time.trim().split_once(' ')?;
    let (h, m) = hm.split_once(':')?;
    let (mut h, m): (i64, i64) = (h.parse().ok()?, m.parse().ok()?);
    match ampm.to_ascii_lowercase().as_str() {
        "pm" if h != 12 => h += 12,
        "am" if h == 12 => h = 0,
        _ => {}
    }
    let parts: Vec<&str> = date.split([' ', ',']).filter(|p| !p.is_empty()).collect();
    let (d, mon, y): (i64, &str, i64) = (parts.first()?.parse().ok()?, parts.get(1)?, parts.get(2)?.parse().ok()?);
    let mo = memstr::text::MONTHS.iter().position(|x| x.starts_with(&mon.to_ascii_lowercase()))? as i64 + 1;
    // Days from civil (Howard Hinnant).
    let (yy, mm) = if mo <= 2 { (y - 1, mo + 9) } else { (y, mo - 3) };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let doy = (153 * mm + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some((days * 86_400 + h * 3600 + m * 60) as f64)
}

/// The README's evidence clean-up: split on ';' and whitespace, fix "D:11:26" and "D30:05",
/// drop unknown and duplicate ids.
pub fn clean_evidence(raw: &[Value], known: &HashSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    for item in raw.iter().filter_map(Value::as_str) {
        for tok in item.split(|c: char| c == ';' || c.is_whitespace()).filter(|t| !t.is_empty()) {
            let t = tok.replacen("D:", "D", 1);
            let Some((s, n)) = t.trim_start_matches('D').split_once(':') else { continue };
            let (Ok(s), Ok(n)) = (s.parse::<u32>(), n.parse::<u32>()) else { continue };
            let id = format!("D{s}:{n}");
            if known.contains(&id) && !out.contains(&id) {
                out.push(id);
            }
        }
    }
    out
}

/// One dialog turn: its id, its session's time plus its index, and its memory text
/// ("{speaker}: {text}" plus " [image: {caption}]").
pub struct Turn {
    pub id: String,
    pub ts: f64,
    pub text: String,
}

/// The turns of a conversation, in order.
pub fn turns(conv: &Value) -> Vec<Turn> {
    let mut out = Vec::new();
    for s in 1.. {
        let Some(list) = conv.get(format!("session_{s}")).and_then(Value::as_array) else { break };
        let date = conv[format!("session_{s}_date_time")].as_str().and_then(parse_date).expect("a session date");
        for (i, t) in list.iter().enumerate() {
            let mut text = format!("{}: {}", t["speaker"].as_str().unwrap_or(""), t["text"].as_str().unwrap_or(""));
            if let Some(c) = t["blip_caption"].as_str() {
                text.push_str(&format!(" [image: {c}]"));
            }
            out.push(Turn { id: t["dia_id"].as_str().unwrap_or("").to_string(), ts: date + i as f64, text });
        }
    }
    out
}
