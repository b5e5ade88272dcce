//! Contradictions without a correction cue: "Alice switched from coffee to green tea"
//! against "Alice drinks coffee every morning". Word overlap (and often the cosine of
//! embeddings) is low for such pairs, so the check reads the two sentences' shape instead
//! of their similarity: the same subject (the first content word), then one of
//!
//! - a switch: "switched/moved/went from X to Y", "replaced X with Y", "swapped X for Y",
//!   where the old value mentions X;
//! - a negation on one side only over the same words;
//! - an antonym pair ("likes"/"hates", "enabled"/"disabled", "vegetarian"/"eats fish")
//!   over otherwise shared words;
//! - a changed value of one kind (a number or time, a weekday habit, a month) with the
//!   other words alike;
//! - a changed object after a shared relation ("drinks coffee" → "drinks green tea",
//!   "favourite drink is green tea"), unless the relation holds many objects at once
//!   ("likes", "speaks", "visited"), the new value adds ("also", "too"), the two name
//!   different occasions ("every morning", "with dinner"), or the relation is only a
//!   modifier ("favourite editor" against "favourite band").
//!
//! Everything here is lexical: the same rules serve the gate with and without a model.

use crate::text::{tokenize, MONTHS, STOP_WORDS, WEEKDAYS};

/// Words that only mark a change or a habit and say nothing about the fact itself.
const FILLER: &[&str] = &[
    "every",
    "each",
    "currently",
    "nowadays",
    "lately",
    "recently",
    "days",
    "day",
    "anymore",
    "still",
    "usually",
    "am",
    "pm",
    "also",
    "well",
    "again",
    "old",
    "called",
    "named",
    "longer",
    "actually",
    "now",
];

/// Words with which a new value adds to the old rather than replacing it.
const ADDITIVE: &[&str] = &["also", "too", "additionally", "another", "besides", "plus", "sometimes", "occasionally"];

/// Relations that hold many objects at once: a new object is an addition, unless a word
/// after it matches too ("prefers tabs for indentation" → "prefers spaces for indentation").
const MULTI: &[&str] = &[
    "allergic", "like", "love", "enjoy", "prefer", "speak", "play", "know", "read", "visit", "watch", "collect", "own",
    "learn", "listen", "use", "follow", "study", "eat", "write", "cook", "support",
];

/// Words that qualify a relation without naming it: "favourite" alone does not make
/// "favourite editor" and "favourite band" one slot.
const MODIFIER: &[&str] = &["favourite", "favorite", "main", "primary", "preferred", "usual", "current", "best", "new"];

/// Occasions: two values naming different ones can both hold.
const OCCASION: &[&str] = &[
    "morning",
    "afternoon",
    "evening",
    "night",
    "dinner",
    "lunch",
    "breakfast",
    "weekend",
    "weekends",
    "holiday",
    "holidays",
    "vacation",
    "yesterday",
    "today",
    "tonight",
    "tomorrow",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

/// Prepositions: "drives a Toyota" and "drives to work" are different relations.
const PREPOSITIONS: &[&str] =
    &["to", "at", "in", "on", "by", "from", "with", "for", "into", "of", "about", "near", "under", "over", "off"];

/// The verbs that carry a relation in a plain statement: "is" and "has" are two relations.
const AUXILIARIES: &[&str] = &["is", "are", "was", "were", "has", "have", "had"];

/// Verbs of a change of value, before "from X to Y".
/// Folded; the short ones match whole words only.
const SWITCH_VERBS: &[&str] =
    &["switch", "swap", "mov", "migrat", "chang", "went", "gone", "go", "convert", "transition", "shift", "upgrad"];

fn is_switch_verb(word: &str) -> bool {
    let f = fold(word);
    SWITCH_VERBS.iter().any(|v| f == *v || (v.len() >= 4 && f.starts_with(v)))
}

/// Antonym groups: a word (or phrase) of one side in one value and of the other in the
/// other, over shared words, is a contradiction.
const ANTONYMS: &[(&[&str], &[&str])] = &[
    (&["like", "love", "enjoy", "prefer", "adore"], &["dislike", "hate", "detest", "avoid", "loathe"]),
    (&["early", "early bird", "morning person"], &["late", "night owl"]),
    (&["always"], &["never"]),
    (&["enabled", "enable"], &["disabled", "disable"]),
    (&["allowed", "allow", "permitted", "permit"], &["forbidden", "forbid", "banned", "ban", "prohibited", "prohibit"]),
    (&["public"], &["private"]),
    (&["open"], &["closed", "shut"]),
    (&["remote", "remotely", "from home"], &["office", "onsite", "on site", "in person"]),
    (&["introvert", "introverted"], &["extrovert", "extroverted", "extravert"]),
    (&["vegetarian", "vegan"], &["meat", "fish", "chicken", "beef", "pork", "steak", "bacon"]),
    (&["accept", "accepts", "accepted"], &["decline", "reject", "refuse"]),
    (&["dark"], &["light"]),
    (&["support"], &["oppose"]),
    (&["agree"], &["disagree"]),
    (&["trust"], &["distrust", "mistrust"]),
    (&["include"], &["exclude"]),
    (&["increase"], &["decrease"]),
    (&["married"], &["single", "divorced"]),
    (&["smoker", "smokes"], &["nonsmoker", "non smoker"]),
    (&["required", "mandatory"], &["optional"]),
    (&["true"], &["false"]),
    (&["available"], &["unavailable"]),
    (&["active"], &["inactive"]),
    (&["fast", "quick"], &["slow"]),
    (&["loud"], &["quiet"]),
];

/// One value read for the check.
#[derive(Debug)]
pub(crate) struct Clause {
    /// All words, lower case (apostrophes split them: "alice's" → "alice", "s").
    words: Vec<String>,
    /// The same, folded, joined by single spaces (for phrases).
    folded_text: String,
    /// The first content word, folded.
    subject: Option<String>,
    /// Content words after the subject, folded, in order, each with its index in `words`;
    /// values and filler left out.
    rest: Vec<(usize, String)>,
    /// Numbers and times, as written ("9", "30", "6" for "6am", "3" for "3rd").
    numbers: Vec<String>,
    /// Weekdays of a habit ("on Tuesdays", "every Tuesday").
    weekdays: Vec<String>,
    /// Months.
    months: Vec<String>,
    negated: bool,
}

fn is_stop(w: &str) -> bool {
    STOP_WORDS.contains(&w)
}

fn fold(w: &str) -> String {
    super::fold(w)
}

/// The leading digits of a number-like word ("6am" → "6", "3rd" → "3", "1200" → "1200").
fn number_of(w: &str) -> Option<String> {
    let digits: String = w.chars().take_while(|c| c.is_ascii_digit()).collect();
    if digits.is_empty() {
        return None;
    }
    let unit = &w[digits.len()..];
    const UNITS: &[&str] = &["", "am", "pm", "h", "st", "nd", "rd", "th", "k", "km", "kg", "m", "s", "min", "x"];
    UNITS.contains(&unit).then_some(digits)
}

/// "three" as "3": a value written in words in one sentence and in digits in the other is
/// the same value.
fn number_word(w: &str) -> Option<String> {
    const WORDS: [&str; 12] =
        ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];
    WORDS.iter().position(|x| *x == w).map(|i| (i + 1).to_string())
}

/// A sentence this long says several things of its subject: a changed word in it is not
/// one changed value (the value and object rules stand aside).
const MANY_WORDS: usize = 7;

const NEGATIONS: &[&str] =
    &["not", "no", "never", "nor", "none", "nothing", "neither", "nobody", "cannot", "dont", "doesnt", "isnt"];

/// Words a value opens with that say nothing about its subject ("Actually, I moved ...").
const LEAD: &[&str] = &["actually", "correction", "update", "note", "now", "so", "well", "fyi", "currently", "also"];

/// Who or what a value is about, and the index in `words` after the words it took:
/// `self` for the writer ("I", "my", "the user"), `we` for the writer's team ("we",
/// "our"), a run of capitalised words for a name ("Ben Carter's team" is about
/// `ben carter`, not about Ben alone with "carter" said of him), else `None` (the first
/// content word stands in, as before).
fn entity(text: &str, words: &[String]) -> Option<(String, usize)> {
    let cased: Vec<&str> = text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    if cased.len() != words.len() {
        return None;
    }
    let mut i = 0;
    while i < words.len() && LEAD.contains(&words[i].as_str()) {
        i += 1;
    }
    // A pronoun before the first content word names the subject.
    let mut j = i;
    while j < words.len() && (is_stop(&words[j]) || NEGATIONS.contains(&words[j].as_str())) {
        match words[j].as_str() {
            "i" | "my" | "me" | "mine" | "myself" => return Some(("self".into(), j + 1)),
            "we" | "our" | "us" | "ours" | "ourselves" => return Some(("we".into(), j + 1)),
            _ => j += 1,
        }
    }
    if j + 1 < words.len() && words[j] == "user" && j > 0 && words[j - 1] == "the" {
        return Some(("self".into(), j + 1));
    }
    // A name: capitalised words in a row, up to three ("New York", "Ben Carter").
    let capital = |k: usize| cased[k].chars().next().is_some_and(char::is_uppercase) && !is_stop(&words[k]);
    let mut end = j;
    while end < words.len() && end < j + 3 && capital(end) && number_of(&words[end]).is_none() {
        end += 1;
    }
    // One word is a name only when something follows it; two or more always are.
    (end > j + 1).then(|| (words[j..end].iter().map(|w| fold(w)).collect::<Vec<_>>().join(" "), end))
}

impl Clause {
    pub(crate) fn read(text: &str) -> Clause {
        let words = tokenize(text);
        let folded_text = words.iter().map(|w| fold(w)).collect::<Vec<_>>().join(" ");
        let subject = entity(text, &words);
        let mut c = Clause {
            words: words.clone(),
            folded_text,
            subject: subject.as_ref().map(|(s, _)| s.clone()),
            rest: Vec::new(),
            numbers: Vec::new(),
            weekdays: Vec::new(),
            months: Vec::new(),
            negated: super::negated(&super::normalise(text)),
        };
        // The words the subject took are not part of what is said about it.
        let taken = subject.map(|(_, end)| end).unwrap_or(0);
        for (i, w) in words.iter().enumerate() {
            if let Some(n) = number_of(w).or_else(|| number_word(w)) {
                c.numbers.push(n);
                continue;
            }
            let singular = w.strip_suffix('s').unwrap_or(w);
            if WEEKDAYS.contains(&singular) {
                let habit = w.ends_with('s') || (i > 0 && words[i - 1] == "every");
                if habit {
                    c.weekdays.push(singular.to_string());
                    continue;
                }
            }
            // "may" is a modal verb far more often than a month in a stored sentence.
            if w != "may" && MONTHS.contains(&w.as_str()) && c.subject.is_some() {
                c.months.push(w.clone());
                continue;
            }
            if i < taken || is_stop(w) || NEGATIONS.contains(&w.as_str()) || FILLER.contains(&w.as_str()) {
                continue;
            }
            let f = fold(w);
            if c.subject.is_none() {
                c.subject = Some(f);
            } else if !c.rest.iter().any(|(_, r)| *r == f) && c.subject.as_deref() != Some(f.as_str()) {
                c.rest.push((i, f));
            }
        }
        c
    }

    fn has_phrase(&self, folded_phrase: &str) -> bool {
        format!(" {} ", self.folded_text).contains(&format!(" {folded_phrase} "))
    }

    fn has_word(&self, w: &str) -> bool {
        self.words.iter().any(|x| x == w)
    }

    fn rest_words(&self) -> Vec<&str> {
        self.rest.iter().map(|(_, w)| w.as_str()).collect()
    }

    /// Every content word including the subject, folded.
    fn content(&self) -> Vec<&str> {
        self.subject.iter().map(String::as_str).chain(self.rest_words()).collect()
    }
}

/// Why `new_value` contradicts `old_value` though it carries no correction cue, if it does
/// (see the module's documentation). The answer names the rule: `switch X -> Y`,
/// `stopped X`, `negation`, `antonym A/B`, `value X -> Y`, `object X -> Y`.
pub fn contradiction(new_value: &str, old_value: &str) -> Option<String> {
    finding(new_value, old_value).map(|f| f.cue)
}

/// What [`finding`] read in a pair.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Finding {
    /// The rule and what it saw (see [`contradiction`]).
    pub cue: String,
    /// The new value names the old value it replaces (a switch from it, a stop of it, a
    /// negation of the same words): a correction at any similarity. The other rules read
    /// a changed value after a relation the two seem to share, which a far memory can
    /// match by accident: the gate asks rather than supersedes when similarity is low.
    pub explicit: bool,
}

/// [`contradiction`] with how sure it is.
pub(crate) fn finding(new_value: &str, old_value: &str) -> Option<Finding> {
    finding_between(&Clause::read(new_value), &Clause::read(old_value))
}

/// [`finding`] on values already read: a caller comparing many pairs reads each value once.
pub(crate) fn finding_between(new: &Clause, old: &Clause) -> Option<Finding> {
    let explicit = |cue: String| Finding { cue, explicit: true };
    let implied = |cue: String| Finding { cue, explicit: false };
    // A switch names the old value: "we moved login from Auth0 to WorkOS" corrects "Login
    // uses Auth0" though the subjects read differently, when the two share more than X.
    if let Some(cue) = switch(new, old) {
        // Named in another subject's sentence ("MRR went from $48k to $61k" after "Our
        // revenue is $48k a month"): likely the same value, not sure enough to supersede.
        return Some(if subjects_meet(new, old) { explicit(cue) } else { implied(cue) });
    }
    if new.subject.is_none() || new.subject != old.subject {
        return None;
    }
    stopped(new, old)
        .map(explicit)
        .or_else(|| negation(new, old).map(explicit))
        .or_else(|| antonym(new, old).map(implied))
        .or_else(|| value(new, old).map(implied))
        .or_else(|| object(new, old).map(implied))
}

/// The subject both values are about, when both name one the same way (`self`, `we`, a
/// name, or the first content word).
pub fn same_subject(a: &str, b: &str) -> bool {
    let (a, b) = (Clause::read(a), Clause::read(b));
    a.subject.is_some() && a.subject == b.subject
}

/// Whether the value is about the writer or the writer's team ("I", "my", "we", "our").
pub(crate) fn speaks_for_writer(text: &str) -> bool {
    matches!(Clause::read(text).subject.as_deref(), Some("self" | "we"))
}

/// The same subject, or the new value speaks for the writer or the team ("we moved ...")
/// and shares a content word with the old one besides the switched values.
fn subjects_meet(new: &Clause, old: &Clause) -> bool {
    if new.subject.is_some() && new.subject == old.subject {
        return true;
    }
    let speaker = matches!(new.subject.as_deref(), Some("self" | "we"));
    let old_subject_said = old.subject.as_deref().is_some_and(|s| new.rest_words().contains(&s));
    speaker && old_subject_said
}

/// "stopped running", "quit smoking", "gave up coffee", "no longer drinks coffee", "don't
/// drink coffee anymore", where the old value does (the same verb or object, not negated).
fn stopped(new: &Clause, old: &Clause) -> Option<String> {
    if old.negated {
        return None;
    }
    let w = &new.words;
    let after = (0..w.len()).find_map(|i| {
        let two = w.get(i + 1).map(String::as_str);
        match (w[i].as_str(), two) {
            ("stopped" | "quit" | "quitted" | "ceased", _) => Some(i + 1),
            ("gave" | "given" | "give", Some("up")) => Some(i + 2),
            ("no", Some("longer")) => Some(i + 2),
            _ => None,
        }
    });
    let after =
        after.or_else(|| (new.negated && (new.has_word("anymore") || new.has_phrase("any more"))).then_some(0))?;
    let said: Vec<String> =
        w[after..].iter().filter(|x| !is_stop(x) && !NEGATIONS.contains(&x.as_str())).map(|x| fold(x)).collect();
    let old_content = old.content();
    let hit = said.iter().take(3).find(|s| old_content.iter().any(|o| stem_match(s, o)))?;
    Some(format!("stopped {hit}"))
}

/// Folded forms of one word: "runn" (running) and "run", "coff" (coffees) and "coffe".
fn stem_match(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    a == b || (short.len() >= 3 && long.starts_with(short) && long.len() - short.len() <= 2)
}

/// Whether `new_value` negates `old_value` about the same subject over (nearly) the same
/// words: the negation cue of [`super::correction_cue`].
pub(super) fn negation_flip(new_value: &str, old_value: &str) -> bool {
    let (new, old) = (Clause::read(new_value), Clause::read(old_value));
    new.subject.is_some() && new.subject == old.subject && negation(&new, &old).is_some()
}

/// "switched from X to Y", "replaced X with Y", "swapped X for Y" with X in the old value.
fn switch(new: &Clause, old: &Clause) -> Option<String> {
    let w = &new.words;
    let span = |from: usize, stops: &[&str]| -> Option<(Vec<String>, usize)> {
        let end = (from..w.len()).find(|&j| stops.contains(&w[j].as_str()))?;
        Some((w[from..end].iter().filter(|x| !is_stop(x)).map(|x| fold(x)).collect(), end))
    };
    let mut found: Option<(Vec<String>, Vec<String>)> = None;
    for (i, word) in w.iter().enumerate() {
        let f = fold(word);
        let verb_before = w[..i].iter().any(|x| is_switch_verb(x));
        if word == "from" && verb_before {
            if let Some((x, end)) = span(i + 1, &["to", "into"]) {
                let y = w[end + 1..].iter().filter(|x| !is_stop(x)).map(|x| fold(x)).collect();
                found = Some((x, y));
                break;
            }
        }
        let pair_stops: Option<&[&str]> = if f.starts_with("replac") {
            Some(&["with", "by"])
        } else if f.starts_with("swap") || f.starts_with("trad") || f.starts_with("exchang") {
            Some(&["for"])
        } else {
            None
        };
        if let Some(stops) = pair_stops {
            if let Some((x, end)) = span(i + 1, stops) {
                let y = w[end + 1..].iter().filter(|x| !is_stop(x)).map(|x| fold(x)).collect();
                found = Some((x, y));
                break;
            }
        }
    }
    let (x, y) = found?;
    let old_content = old.content();
    let mentioned = x.iter().any(|xw| old_content.contains(&xw.as_str()));
    // Switching to what the old value already says is no change.
    let already = !y.is_empty() && y.iter().all(|yw| old_content.contains(&yw.as_str()));
    (mentioned && !already).then(|| format!("switch {} -> {}", x.join(" "), y.join(" ")))
}

/// A negation on one side only, over (nearly) the same words.
fn negation(new: &Clause, old: &Clause) -> Option<String> {
    if new.negated == old.negated {
        return None;
    }
    let (a, b) = (new.rest_words(), old.rest_words());
    let same_values = new.numbers == old.numbers && new.weekdays == old.weekdays;
    let close = (a.is_empty() && b.is_empty()) || cosine(&a, &b) >= 0.6;
    // "..., but not by phone" after the whole old sentence negates what it adds.
    let (longer, shorter) = if a.len() >= b.len() { (&a, &b) } else { (&b, &a) };
    let added = longer.iter().filter(|w| !shorter.contains(w)).count();
    if !shorter.is_empty() && shorter.iter().all(|w| longer.contains(w)) && added > 1 {
        return None;
    }
    (close && same_values).then(|| "negation".to_string())
}

/// An antonym pair across the two values over otherwise shared words.
fn antonym(new: &Clause, old: &Clause) -> Option<String> {
    // "Tom does not like X" and "Tom dislikes X" agree.
    if new.negated != old.negated {
        return None;
    }
    for (left, right) in ANTONYMS {
        for (this, that) in [(left, right), (right, left)] {
            let Some(a) = first_phrase(new, this).filter(|_| first_phrase(old, this).is_none()) else { continue };
            let Some(b) = first_phrase(old, that).filter(|_| first_phrase(new, that).is_none()) else { continue };
            let drop = |c: &Clause| -> Vec<String> {
                let group: Vec<String> = left.iter().chain(right.iter()).flat_map(|p| p.split(' ')).map(fold).collect();
                c.rest_words().into_iter().filter(|w| !group.contains(&w.to_string())).map(str::to_string).collect()
            };
            let (ra, rb) = (drop(new), drop(old));
            if ra.is_empty() || rb.is_empty() || ra.iter().any(|w| rb.contains(w)) {
                return Some(format!("antonym {b}/{a}"));
            }
        }
    }
    None
}

/// The first phrase of `group` present in the clause, folded.
fn first_phrase(c: &Clause, group: &[&str]) -> Option<String> {
    group.iter().map(|p| p.split(' ').map(fold).collect::<Vec<_>>().join(" ")).find(|p| c.has_phrase(p))
}

/// A changed value of one kind (numbers, habit weekdays, months), the other words alike.
fn value(new: &Clause, old: &Clause) -> Option<String> {
    if new.rest.len().max(old.rest.len()) > MANY_WORDS
        || new.negated != old.negated
        || ADDITIVE.iter().any(|w| new.has_word(w))
        || occasions_differ(new, old)
    {
        return None;
    }
    let kinds = [(&new.numbers, &old.numbers), (&new.weekdays, &old.weekdays), (&new.months, &old.months)];
    // A value the new sentence keeps, with more beside it, is a detail added, not changed.
    let changed = kinds.iter().find(|(n, o)| !n.is_empty() && !o.is_empty() && o.iter().any(|x| !n.contains(x)))?;
    let (a, b) = (new.rest_words(), old.rest_words());
    let alike = (a.is_empty() && b.is_empty()) || cosine(&a, &b) >= 0.5;
    alike.then(|| format!("value {} -> {}", changed.1.join(","), changed.0.join(",")))
}

/// Both values name an occasion, and not the same one.
fn occasions_differ(new: &Clause, old: &Clause) -> bool {
    let occ = |c: &Clause| c.words.iter().filter(|w| OCCASION.contains(&w.as_str())).cloned().collect::<Vec<_>>();
    let (a, b) = (occ(new), occ(old));
    !a.is_empty() && !b.is_empty() && !a.iter().any(|w| b.contains(w))
}

/// A changed object after a shared relation.
fn object(new: &Clause, old: &Clause) -> Option<String> {
    if new.rest.len().max(old.rest.len()) > MANY_WORDS
        || new.negated != old.negated
        || ADDITIVE.iter().any(|w| new.has_word(w))
        || occasions_differ(new, old)
    {
        return None;
    }
    let new_words = new.rest_words();
    let old_words = old.rest_words();
    // The relation: the old value's words before its first word the new one lacks.
    let first_diff = old.rest.iter().position(|(_, w)| !new_words.contains(&w.as_str()))?;
    let relation: Vec<&str> = old_words[..first_diff].to_vec();
    let named = relation.iter().any(|w| !MODIFIER.iter().any(|m| fold(m) == *w));
    if !named {
        return None;
    }
    let added: Vec<&str> = new_words.iter().copied().filter(|w| !old_words.contains(w)).collect();
    if added.is_empty() {
        return None;
    }
    // A relation of many objects needs a shared word after the object: the same slot.
    if relation.iter().any(|w| MULTI.iter().any(|m| fold(m) == *w)) {
        let after = old_words[first_diff + 1..].iter().any(|w| new_words.contains(w));
        if !after {
            return None;
        }
    }
    // The same preposition (or none) between the relation and the object on both sides.
    let last_rel = relation.last()?;
    let preps = |c: &Clause, object_at: Option<usize>| -> Vec<String> {
        let Some(rel_at) = c.rest.iter().find(|(_, w)| w.as_str() == *last_rel).map(|(i, _)| *i) else {
            return Vec::new();
        };
        let Some(obj_at) = object_at.filter(|&o| o > rel_at) else { return Vec::new() };
        c.words[rel_at + 1..obj_at].iter().filter(|w| PREPOSITIONS.contains(&w.as_str())).cloned().collect()
    };
    let old_obj = old.rest[first_diff].0;
    let new_obj = new.rest.iter().find(|(_, w)| !old_words.contains(&w.as_str())).map(|(i, _)| *i);
    if preps(old, Some(old_obj)) != preps(new, new_obj) {
        return None;
    }
    // "Beacon is the driver app" and "Beacon has 1,100 drivers" say different things of it.
    fn aux(c: &Clause) -> Vec<&str> {
        c.words.iter().map(String::as_str).filter(|w| AUXILIARIES.contains(w)).take(1).collect()
    }
    let (aux_new, aux_old) = (aux(new), aux(old));
    if !aux_new.is_empty() && !aux_old.is_empty() && aux_new != aux_old {
        return None;
    }
    let gone: Vec<&str> = old_words[first_diff..].iter().copied().filter(|w| !new_words.contains(w)).collect();
    Some(format!("object {} -> {}", gone.join(" "), added.join(" ")))
}

fn cosine(a: &[&str], b: &[&str]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let shared = a.iter().filter(|w| b.contains(w)).count();
    shared as f64 / ((a.len() * b.len()) as f64).sqrt()
}
