#!/usr/bin/env python3
"""Deterministic generator for the agent-memory benchmark workloads.

Builds four independent workloads (dev, holdout, holdout2, holdout3) from
hand-written content in dev_content.py, holdout_content.py, holdout2_content.py
and holdout3_content.py and writes dev.json / holdout.json / holdout2.json /
holdout3.json next to this script.  Standard library only.  Run:  python3 gen.py
"""
import datetime
import json
import math
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

START = 1767603600            # 2026-01-05T09:00:00Z (a Monday)
MIDNIGHT0 = START - 9 * 3600  # 2026-01-05T00:00:00Z
NDAYS = 183
SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
QTYPES = ["person", "preference", "decision", "procedure", "fact", "event",
          "updated", "flat", "unanswerable"]
WORK_DOMAINS = {"work", "projects", "research", "lab"}


def day_date(d):
    return datetime.date(2026, 1, 5) + datetime.timedelta(days=d)


def fmt_date(d):
    dt = day_date(d)
    return "%d %s" % (dt.day, dt.strftime("%b"))


def iso_date(d):
    return day_date(d).isoformat()


def is_weekend(d):
    return d % 7 >= 5


class Builder:
    def __init__(self, name, seed):
        self.name = name
        self.rng = random.Random(seed)
        self.items = []
        self.labels = {}
        self.questions = []   # (qtype, text, [labels])
        self.unanswerable = []
        self.seq = 0

    # ------------------------------------------------------------------ util
    def rday(self, skew=1.4, weekday=False, lo=0, hi=NDAYS - 1):
        while True:
            d = lo + int((self.rng.random() ** skew) * (hi - lo + 1))
            d = min(d, hi)
            if weekday and is_weekend(d):
                continue
            return d

    def add(self, label, day, kind, hour=None, **fields):
        assert 0 <= day < NDAYS, (label, day)
        self.seq += 1
        it = {"label": label, "day": day, "kind": kind, "hour": hour,
              "seq": self.seq, "fields": fields}
        if label:
            assert label not in self.labels, "duplicate label " + label
            self.labels[label] = it
        self.items.append(it)
        return it

    def q(self, qtype, text, labels):
        assert qtype in QTYPES, qtype
        self.questions.append((qtype, text.strip(), list(labels)))

    @staticmethod
    def _qsplit(qfield, default):
        qfield = qfield.strip()
        if not qfield:
            return None, None
        m = re.match(r"^\[(\w+)\]\s*(.*)$", qfield)
        if m:
            return m.group(1), m.group(2)
        return default, qfield

    def _day(self, s, domain=""):
        s = s.strip()
        if s == "*":
            return self.rday(weekday=domain in WORK_DOMAINS)
        if s.startswith("*"):  # *lo-hi  random in range
            lo, hi = s[1:].split("-")
            return self.rday(skew=1.0, weekday=domain in WORK_DOMAINS, lo=int(lo), hi=int(hi))
        return int(s)

    # --------------------------------------------------------------- parsers
    @staticmethod
    def _lines(block):
        for raw in block.strip("\n").split("\n"):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            yield line

    def persona_block(self, block):
        """day|domain|facet|key|value|themes|importance|question|also"""
        default_type = {"preferences": "preference", "decisions": "decision",
                        "procedures": "procedure", "events": "event",
                        "facts": "person", "relationships": "person",
                        "beliefs": "preference"}
        for line in self._lines(block):
            f = line.split("|")
            f += [""] * (9 - len(f))
            assert len(f) == 9, line
            day_s, dom, facet, key, value, themes, imp, qf, also = [x.strip() for x in f]
            day = self._day(day_s, dom)
            fields = {"domain": dom, "facet": facet, "key": key, "value": value}
            if themes:
                fields["themes"] = [t.strip() for t in themes.split(",")]
            if imp:
                fields["importance"] = float(imp)
            label = "p:" + key
            self.add(label, day, "persona", **fields)
            qt, qtext = self._qsplit(qf, default_type.get(facet, "person"))
            if qtext and qt == "person" and dom in WORK_DOMAINS and not qf.strip().startswith("["):
                qtext = None  # facts about organisations/places are not "person" questions
            if qtext:
                labels = [label] + [a.strip() for a in also.split(",") if a.strip()]
                self.q(qt, qtext, labels)

    def pairs_block(self, block):
        """d1|domain|facet|key1|value1|d2|key2|value2|themes|question"""
        for line in self._lines(block):
            f = [x.strip() for x in line.split("|")]
            f += [""] * (10 - len(f))
            assert len(f) == 10, line
            d1, dom, facet, k1, v1, d2, k2, v2, themes, qf = f
            d1 = self._day(d1, dom)
            d2 = self._day(d2, dom)
            assert d2 > d1, line
            th = [t.strip() for t in themes.split(",")] if themes else None
            f1 = {"domain": dom, "facet": facet, "key": k1, "value": v1}
            f2 = {"domain": dom, "facet": facet, "key": k2, "value": v2}
            if th:
                f1["themes"] = th
                f2["themes"] = th
            self.add("p:" + k1, d1, "persona", **f1)
            new = self.add("p:" + k2, d2, "persona", **f2)
            new["supersedes_label"] = "p:" + k1
            qt, qtext = self._qsplit(qf, "updated")
            if qtext:
                self.q(qt, qtext, ["p:" + k2])

    def facts_block(self, block):
        """day|domain|subject|attribute|value|question  (repeat triple = update)"""
        counts = {}
        for line in self._lines(block):
            f = [x.strip() for x in line.split("|")]
            f += [""] * (6 - len(f))
            day_s, dom, subj, attr, value, qf = f[:6]
            day = self._day(day_s, dom)
            trip = (dom, subj, attr)
            counts[trip] = counts.get(trip, 0) + 1
            label = "f:%s:%s:%s:%d" % (dom, subj, attr, counts[trip])
            self.add(label, day, "fact", domain=dom, subject=subj, attribute=attr, value=value)
            qt, qtext = self._qsplit(qf, "fact")
            if qtext:
                self.q(qt, qtext, [label])

    def kv_block(self, block):
        """day|key|value|question"""
        for line in self._lines(block):
            f = [x.strip() for x in line.split("|")]
            f += [""] * (4 - len(f))
            day_s, key, value, qf = f[:4]
            day = self._day(day_s)
            label = "k:" + key
            self.add(label, day, "kv", key=key, value=value)
            qt, qtext = self._qsplit(qf, "flat")
            if qtext:
                self.q(qt, qtext, [label])

    def journal_block(self, block, prefix="j"):
        """day|hour|text|question|also"""
        n = 0
        for line in self._lines(block):
            f = [x.strip() for x in line.split("|")]
            f += [""] * (5 - len(f))
            day_s, hour, text, qf, also = f[:5]
            day = self._day(day_s)
            n += 1
            label = "%s:%d:%d" % (prefix, day, n)
            self.add(label, day, "journal", hour=float(hour) if hour else None, content=text)
            qt, qtext = self._qsplit(qf, "event")
            if qtext:
                labels = [label] + [a.strip() for a in also.split(",") if a.strip()]
                self.q(qt, qtext, labels)

    def fill(self, template, slots):
        def rep(m):
            name = m.group(1)
            if name == "n":
                return str(self.rng.randint(2, 5))
            if name == "m":
                return str(self.rng.randint(1, 4))
            if name == "N":
                return str(self.rng.randint(8, 40))
            return self.rng.choice(slots[name])
        return re.sub(r"\{(\w+)\}", rep, template)

    def daily_journals(self, slots, weekday_slots, weekend_slots, skip_days=()):
        """weekday_slots: list of (prob, count_lo, count_hi, hour_lo, hour_hi, [templates])"""
        for d in range(NDAYS):
            if d in skip_days:
                continue
            spec = weekend_slots if is_weekend(d) else weekday_slots
            for prob, clo, chi, hlo, hhi, templates in spec:
                if self.rng.random() >= prob:
                    continue
                for _ in range(self.rng.randint(clo, chi)):
                    text = self.fill(self.rng.choice(templates), slots)
                    hour = self.rng.uniform(hlo, hhi)
                    self.add(None, d, "journal", hour=hour, content=text)

    def resolve(self, label):
        """A label, or '~substring' naming exactly one journal by its content."""
        if label.startswith("~"):
            hits = [it for it in self.items if it["kind"] == "journal"
                    and label[1:] in it["fields"]["content"]]
            assert len(hits) == 1, (label, len(hits))
            return hits[0]
        return self.labels[label]

    # ------------------------------------------------------------ finalise
    def build(self, cap=19):
        rng = self.rng
        for it in self.items:
            d = it["day"]
            if it["hour"] is not None:
                h = it["hour"] + rng.uniform(0, 0.15)
            elif is_weekend(d):
                h = rng.uniform(9.5, 21.5)
            else:
                r = rng.random()
                if r < 0.85:
                    h = rng.uniform(8.5, 19.0)
                elif r < 0.95:
                    h = rng.uniform(19.0, 22.5)
                else:
                    h = rng.uniform(7.5, 8.5)
            h = min(h, 23.95)
            t = MIDNIGHT0 + d * 86400 + int(h * 3600)
            it["t"] = max(t, START)
        self.items.sort(key=lambda x: (x["t"], x["seq"]))
        prev = START - 1
        for it in self.items:
            if it["t"] <= prev:
                it["t"] = prev + rng.randint(7, 95)
            prev = it["t"]
        width = max(4, len(str(len(self.items))))
        for i, it in enumerate(self.items, 1):
            it["id"] = "m%0*d" % (width, i)
        mems = []
        for it in self.items:
            m = {"id": it["id"], "at": it["t"], "kind": it["kind"]}
            m.update(it["fields"])
            if it.get("supersedes_label"):
                m["supersedes"] = self.labels[it["supersedes_label"]]["id"]
            mems.append(m)
        qs = []
        n = 0
        # keep at most `cap` answerable questions per type (deterministic choice)
        qrng = random.Random(self.name + "-questions")
        bytype = {}
        for i, qq in enumerate(self.questions):
            bytype.setdefault(qq[0], []).append(i)
        keep = set()
        for t, idx in bytype.items():
            keep |= set(idx if len(idx) <= cap else qrng.sample(idx, cap))
        self.dropped_questions = [qq for i, qq in enumerate(self.questions) if i not in keep]
        for i, (qtype, text, labels) in enumerate(self.questions):
            if i not in keep:
                continue
            n += 1
            ans_items = [self.resolve(l) for l in labels]
            last = max(a["t"] for a in ans_items)
            qs.append({"id": "q%03d" % n, "type": qtype, "question": text,
                       "answers": [a["id"] for a in ans_items],
                       "asked_after_days": int(math.ceil((last - START) / 86400.0))})
        for text in self.unanswerable:
            n += 1
            qs.append({"id": "q%03d" % n, "type": "unanswerable", "question": text,
                       "answers": [], "asked_after_days": NDAYS})
        return {"name": self.name, "start": START, "memories": mems, "questions": qs}


# ---------------------------------------------------------------- validation
STOP = set("""a an the of to in on at for and or is are was were be been do does did
what which who whom whose when where why how i me my we our us you your he she it its
they them their his her this that these those with from by about as into any can could
should would will shall may might must have has had not no yes than then there here
so if but up out over again more most some such only own same too very just get got
dana niamh mireille anneke s t""".split())


def words(s):
    return [w for w in re.findall(r"[a-z0-9]+", s.lower()) if w not in STOP and len(w) > 2]


def validate(ws, report=True):
    errors = []
    mems = ws["memories"]
    byid = {m["id"]: m for m in mems}
    assert len(byid) == len(mems), "duplicate ids"
    prev = 0
    for m in mems:
        if m["at"] <= prev:
            errors.append("time not increasing at " + m["id"])
        prev = m["at"]
        if not (START <= m["at"] < START + NDAYS * 86400):
            errors.append("time out of range " + m["id"])
        for k, v in m.items():
            if isinstance(v, str) and (re.search(r"[\x00-\x1f\x7f]", v) or not v.strip()):
                errors.append("bad text in %s.%s" % (m["id"], k))
    kinds = {}
    for m in mems:
        kinds[m["kind"]] = kinds.get(m["kind"], 0) + 1
    seen_pkeys = set()
    superseded = set()
    latest_fact = {}
    for m in mems:
        k = m["kind"]
        if k == "persona":
            for fld in ("domain", "facet", "key", "value"):
                if fld not in m:
                    errors.append("missing %s in %s" % (fld, m["id"]))
            if not SLUG.match(m["key"]) or len(m["key"]) > 60:
                errors.append("bad key " + m["key"])
            trip = (m["domain"], m["facet"], m["key"])
            if trip in seen_pkeys:
                errors.append("dup persona key %s" % (trip,))
            seen_pkeys.add(trip)
            if len(m["value"]) >= 300:
                errors.append("persona value too long " + m["id"])
            if "themes" in m:
                if not (1 <= len(m["themes"]) <= 3) or not all(re.match(r"^[a-z]+$", t) for t in m["themes"]):
                    errors.append("bad themes " + m["id"])
            if "importance" in m and not (0 <= m["importance"] <= 1):
                errors.append("bad importance " + m["id"])
            if "supersedes" in m:
                old = byid.get(m["supersedes"])
                if not old:
                    errors.append("supersedes unknown id " + m["id"])
                else:
                    if old["at"] >= m["at"]:
                        errors.append("supersedes later memory " + m["id"])
                    if (old["domain"], old["facet"]) != (m["domain"], m["facet"]) or old["key"] == m["key"]:
                        errors.append("supersede domain/facet/key mismatch " + m["id"])
                    superseded.add(old["id"])
        elif k == "fact":
            for fld in ("subject", "attribute", "domain"):
                if not SLUG.match(m[fld]) or len(m[fld]) > 60 or ":" in m[fld]:
                    errors.append("bad fact %s %s" % (fld, m[fld]))
            latest_fact[(m["domain"], m["subject"], m["attribute"])] = m["id"]
        elif k == "kv":
            if not SLUG.match(m["key"]) or len(m["key"]) > 60:
                errors.append("bad kv key " + m["key"])
        elif k == "journal":
            if len(m["content"]) >= 500:
                errors.append("journal too long " + m["id"])
    kv_keys = [m["key"] for m in mems if m["kind"] == "kv"]
    if len(kv_keys) != len(set(kv_keys)):
        errors.append("duplicate kv keys")
    fact_entries = [m for m in mems if m["kind"] == "fact"]
    trips = {}
    for m in fact_entries:
        trips.setdefault((m["domain"], m["subject"], m["attribute"]), []).append(m)
    n_updates = sum(len(v) - 1 for v in trips.values())
    qtypes = {}
    qids = set()
    texts = set()
    for q in ws["questions"]:
        qtypes[q["type"]] = qtypes.get(q["type"], 0) + 1
        if q["id"] in qids:
            errors.append("dup qid")
        qids.add(q["id"])
        if q["question"].lower() in texts:
            errors.append("dup question text " + q["question"])
        texts.add(q["question"].lower())
        for a in q["answers"]:
            if a not in byid:
                errors.append("answer id missing " + q["id"])
                continue
            if a in superseded:
                errors.append("answer %s of %s is superseded" % (a, q["id"]))
            m = byid[a]
            if m["kind"] == "fact" and latest_fact[(m["domain"], m["subject"], m["attribute"])] != a:
                errors.append("fact answer not latest in " + q["id"])
        if q["type"] == "updated":
            if "supersedes" not in byid[q["answers"][0]]:
                errors.append("updated question w/o superseding answer " + q["id"])
        if q["type"] == "fact" and byid[q["answers"][0]]["kind"] != "fact":
            errors.append("fact question not answered by fact " + q["id"])
        if q["type"] == "flat" and not all(byid[a]["kind"] == "kv" for a in q["answers"]):
            errors.append("flat question not answered by kv " + q["id"])
        if q["type"] == "unanswerable" and q["answers"]:
            errors.append("unanswerable with answers " + q["id"])
        if q["type"] != "unanswerable" and not q["answers"]:
            errors.append("no answers " + q["id"])
    if report:
        print("== %s: %d memories" % (ws["name"], len(mems)), kinds)
        print("   fact triples %d, fact updates %d, supersede links %d" %
              (len(trips), n_updates, len(superseded)))
        print("   questions %d" % len(ws["questions"]), dict(sorted(qtypes.items())))
        # month distribution of answers
        months = {}
        for q in ws["questions"]:
            for a in q["answers"][:1]:
                mo = datetime.datetime.utcfromtimestamp(byid[a]["at"]).strftime("%m")
                months[mo] = months.get(mo, 0) + 1
        print("   first-answer month distribution", dict(sorted(months.items())))
        # lexical overlap between question and answer (content words)
        ov = []
        for q in ws["questions"]:
            if not q["answers"]:
                continue
            qa = set(words(q["question"]))
            at = set()
            for a in q["answers"]:
                m = byid[a]
                at |= set(words(" ".join(str(m.get(x, "")) for x in
                                        ("key", "value", "content", "subject", "attribute"))))
            ov.append((len(qa & at) / max(1, len(qa)), q["id"], q["question"]))
        ov.sort(reverse=True)
        avg = sum(o[0] for o in ov) / max(1, len(ov))
        print("   mean content-word overlap question->answer: %.2f" % avg)
        print("   questions with zero overlap: %d" % sum(1 for o in ov if o[0] == 0))
        for o in ov[:6]:
            print("     high overlap %.2f %s %s" % o)
    return errors


def all_text(ws):
    """Every string in a workload's memories and questions, joined."""
    parts = []
    for m in ws["memories"]:
        parts += [v if isinstance(v, str) else " ".join(v) for k, v in m.items()
                  if k not in ("id", "kind") and isinstance(v, (str, list))]
    parts += [q["question"] for q in ws["questions"]]
    return "\n".join(parts)


def validate_isolation(name, names, others):
    """The workload's own proper names must not occur in any other workload."""
    errors = []
    for other, ws in others.items():
        text = all_text(ws)
        for nm in names:
            if re.search(r"(?<![A-Za-z])%s(?![A-Za-z])" % re.escape(nm), text):
                errors.append("%s name %r also occurs in %s" % (name, nm, other))
    return errors


def validate_series(ws):
    """Generated series must not put two events of one series on the same day,
    and every answer must exist before the question can be asked."""
    errors = []
    seen = set()
    for m in ws["memories"]:
        if m["kind"] == "persona" and m["facet"] == "events":
            mm = re.match(r"^(.*)-(\d{4}-\d{2}-\d{2})$", m["key"])
            if mm:
                day = datetime.datetime.utcfromtimestamp(m["at"]).date().isoformat()
                if mm.group(2) != day:
                    errors.append("series key date %s differs from its day %s" % (m["key"], day))
                if (mm.group(1), day) in seen:
                    errors.append("two %s events on %s" % (mm.group(1), day))
                seen.add((mm.group(1), day))
    byid = {m["id"]: m for m in ws["memories"]}
    for q in ws["questions"]:
        for a in q["answers"]:
            if byid[a]["at"] > START + q["asked_after_days"] * 86400:
                errors.append("answer %s of %s is newer than asked_after_days" % (a, q["id"]))
        if q["type"] != "unanswerable" and len(set(q["answers"])) != len(q["answers"]):
            errors.append("repeated answer id in " + q["id"])
    return errors


def main():
    import dev_content
    import holdout_content
    import holdout2_content
    import holdout3_content
    all_err = []
    built = {}
    for mod, name, seed in ((dev_content, "dev", 20260105), (holdout_content, "holdout", 19840611),
                            (holdout2_content, "holdout2", 20260706), (holdout3_content, "holdout3", 20261112)):
        b = Builder(name, seed)
        mod.build(b)
        ws = b.build()
        errs = validate(ws)
        if name == "holdout3":  # checks added with holdout3; the older sets are left as they were
            errs += validate_series(ws)
            errs += validate_isolation(name, mod.NAMES, {k: v for k, v in built.items()})
            print("   series and isolation checks: %s" % ("ok" if not errs else "see errors"))
        for e in errs:
            print("   ERROR", e)
        all_err += errs
        built[name] = ws
        with open(os.path.join(HERE, name + ".json"), "w", encoding="utf-8") as fh:
            json.dump(ws, fh, ensure_ascii=False, indent=1)
    if all_err:
        sys.exit(1)


if __name__ == "__main__":
    main()
