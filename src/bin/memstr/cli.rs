//! Running a command: opening the store as the arguments say, and dispatching.

use std::io::{IsTerminal, Read};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use memstr::identity::ENV_PASSWORD;
use memstr::{Identity, MemoryStore, PersonaInput, PersonaQuery, StoreOptions};
use nostr::JsonUtil;
use zeroize::Zeroizing;

use crate::args::*;
use crate::output::Out;

pub(crate) fn password(confirm: bool) -> Result<Zeroizing<String>> {
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

pub(crate) fn identity(args: &Args) -> Result<Identity> {
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
        Command::Search(search) => !search.no_vectors,
        Command::Persona(PersonaCommand::Search { .. }) => true,
        Command::Persona(PersonaCommand::Add { gate: true, .. }) => true,
        Command::Introspect | Command::Consolidate | Command::Mcp(_) | Command::Serve | Command::Index => true,
        Command::Episode(e) => e.wants_vectors(),
        // The purged memory's point is blanked in the saved index at once (docs/lifecycle.md).
        Command::Purge { .. } => true,
        _ => false,
    }
}

pub(crate) async fn open(args: &Args, identity: Identity) -> Result<MemoryStore> {
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
    if args.dissolve.is_some() || !args.behaviours.is_empty() {
        let mut life = memstr::LifecycleOptions::default();
        if let Some(policy) = args.dissolve {
            life.dissolve = policy;
        }
        life.behaviours.apply(&args.behaviours.join(","))?;
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
    if let Command::Init { from_env, import, discover, no_key_file, log_n, encrypt } = &args.command {
        return crate::keys::init(
            &args,
            &out,
            (*from_env, import.as_deref(), discover.as_deref(), *no_key_file, *log_n, *encrypt),
        )
        .await;
    }
    if let Command::Key(cmd) = &args.command {
        return crate::keys::key(&args, &out, cmd);
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
    // Each step's time at debug level (`MEMSTR_LOG=memstr=debug`): what a command pays
    // before and after its own work.
    let step = std::time::Instant::now();
    let id = identity(&args)?;
    tracing::debug!(ms = step.elapsed().as_secs_f64() * 1e3, "key");
    if let Command::Encrypt | Command::Decrypt = args.command {
        let encrypt = matches!(args.command, Command::Encrypt);
        let changed = match encrypt {
            true => MemoryStore::encrypt_at_rest(&db, &id).await?,
            false => MemoryStore::decrypt_at_rest(&db, &id).await?,
        };
        out.at_rest(&db, encrypt, changed);
        return Ok(ExitCode::SUCCESS);
    }
    // A server for this store and key answers in milliseconds; without one, this process
    // opens the store and loads the model itself.
    if let Some(done) = crate::forward::try_forward(&args, &args.dir()?, &db, &id) {
        return done;
    }
    // The servers keep a copy of the key, to prove it to the clients they answer.
    let serving = matches!(args.command, Command::Mcp(_) | Command::Serve).then(|| id.clone());
    let step = std::time::Instant::now();
    let store = open(&args, id).await?;
    tracing::debug!(ms = step.elapsed().as_secs_f64() * 1e3, "store open");
    let step = std::time::Instant::now();
    let code = match serving {
        Some(id) => {
            serve(&args, &store, id).await?;
            ExitCode::SUCCESS
        }
        None => dispatch(&args, &store, &out).await?,
    };
    tracing::debug!(ms = step.elapsed().as_secs_f64() * 1e3, "command");
    let step = std::time::Instant::now();
    // Accesses recorded by this command are signed once, here.
    store.close().await?;
    tracing::debug!(ms = step.elapsed().as_secs_f64() * 1e3, "store closed");
    Ok(code)
}

async fn dispatch(args: &Args, store: &MemoryStore, out: &Out) -> Result<ExitCode> {
    let now = store.now();
    match &args.command {
        Command::Init { .. }
        | Command::Key(_)
        | Command::Whoami
        | Command::Model(_)
        | Command::Encrypt
        | Command::Decrypt => {
            unreachable!("handled before opening the store")
        }
        Command::Remember { key, value, at } => {
            let id = store.remember_at(key, &value_arg(value)?, at.as_ref().map_or(now, |w| w.at(now))).await?;
            out.written(&format!("kv/{key}"), &id);
        }
        Command::Recall { key: Some(key), .. } => {
            // As the MCP tool reads a reference: kv/KEY, domain/facet/KEY, or a bare key
            // (one naming several memories is an error listing them).
            let flat = key.strip_prefix("kv/").unwrap_or(key);
            let m = match store.resolve(key).await {
                Ok(r) if r.kind == "persona" => {
                    let mut parts = r.address.splitn(3, '/');
                    let (d, f, k) =
                        (parts.next().unwrap_or(""), parts.next().unwrap_or(""), parts.next().unwrap_or(""));
                    match store.persona_peek(PersonaQuery::exact(d, f, k)).await?.pop() {
                        Some(p) => {
                            out.value(&p.value);
                            return Ok(ExitCode::SUCCESS);
                        }
                        None => None,
                    }
                }
                Ok(r) if r.kind == "journal" => {
                    bail!("{key} is a journal entry: `memstr recent` lists the journal, `memstr search` finds an entry")
                }
                Err(memstr::Error::Ambiguous { key, candidates }) => {
                    bail!(
                        "key {key:?} names several memories: {}; recall one of these addresses",
                        candidates.join(", ")
                    )
                }
                _ => store.recall(flat).await?,
            };
            match m {
                Some(m) => out.memory(&m),
                None => {
                    out.not_found(key);
                    return Ok(ExitCode::from(1));
                }
            }
        }
        Command::Recall { key: None, .. } => out.memories(&store.recall_all().await?),
        Command::Forget { reference } => match store.resolve(reference).await {
            // Forgetting what is not here is not an error, as in the MCP tool: a flat key
            // still gets a deletion request for relays (the published client's forget).
            Err(memstr::Error::NotFound(_)) if reference.strip_prefix("kv/").unwrap_or(reference).contains('/') => {
                out.done(&format!("nothing to forget: {reference} is not here (already forgotten, or never stored)"))
            }
            Err(memstr::Error::NotFound(_)) => {
                let flat = reference.strip_prefix("kv/").unwrap_or(reference);
                let id = store.forget(&format!("kv/{flat}")).await?;
                eprintln!("memstr: kv/{flat} was not here; a deletion request goes to the relays in case another device stored it");
                out.event_id(&id)
            }
            Err(e) => return Err(e.into()),
            Ok(r) => out.event_id(&store.forget(&r.address).await?),
        },
        Command::Archive { reference } => out.address("archived", &store.archive(reference).await?),
        Command::Restore { reference } => {
            let address = store.resolve(reference).await?.address;
            match store.restore_if_archived(&address).await? {
                Some(a) => out.address("restored", &a),
                None => out.done(&format!("{address} was not archived: nothing to restore")),
            }
        }
        Command::Purge { reference } => out.event_id(&store.purge(reference).await?),
        Command::Journal { text, at, context } => {
            let t = at.as_ref().map_or(now, |w| w.at(now));
            let id = crate::episode::journal(store, &value_arg(text)?, t, context.as_deref()).await?;
            out.written(&memstr::address_of(&memstr::MemoryPath::journal(t)), &id)
        }
        Command::Recent { limit, since, until } => {
            let (since, until) = (since.as_ref().map(|w| w.at(now)), until.as_ref().map(|w| w.at(now)));
            out.journal(&store.recent_between(since, until, *limit as usize).await?)
        }
        Command::Stats => out.stats(&store.stats().await?),
        cmd @ (Command::Feedback { .. } | Command::Procedure(_) | Command::Goal(_)) => {
            crate::learning::run(cmd, store, out).await?;
        }
        Command::Search(search) => {
            let q = search_query(search, now);
            let outcome = store.search_outcome(q).await?;
            out.search(&outcome, search.explain);
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
        Command::Import { file, memories, .. } => {
            let input: Box<dyn std::io::Read + Send> = match file {
                Some(path) => {
                    Box::new(std::fs::File::open(path).with_context(|| format!("reading {}", path.display()))?)
                }
                None => Box::new(std::io::stdin()),
            };
            if *memories {
                import_memories(store, out, input).await?;
                return Ok(ExitCode::SUCCESS);
            }
            let progress = crate::output::import_progress(out);
            let report = store.import_reader(input, progress).await?;
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
            RelayCommand::Discover { relays, allow_private } => {
                let opts = crate::syncing::sync_options(out, false);
                let report = store.discover_relays(relays, &opts, *allow_private).await?;
                out.discovered(&report);
                if store.relays().await?.is_empty() {
                    bail!("no relay list found for this key: add a relay with `memstr relay add wss://...`");
                }
                let reports =
                    crate::syncing::sync_passes(store, &opts, crate::syncing::DEFAULT_SYNC_PASSES, out).await?;
                out.sync(&reports);
                if reports.iter().any(|r| r.error.is_some()) {
                    return Ok(ExitCode::from(3));
                }
            }
            RelayCommand::Public { state } => {
                let on = state == "on";
                store.set_public_relay_list(on).await?;
                out.done(if on {
                    "the relay list is published in public too (NIP-65): anyone learns where this key's events are"
                } else {
                    "the relay list is private (NIP-37) only"
                });
            }
            RelayCommand::Serve(_) => unreachable!("served before opening the store"),
        },
        Command::Sync { full, watch, passes } => {
            if store.relays().await?.is_empty() {
                bail!("no relays: add one with `memstr relay add wss://...`");
            }
            let opts = crate::syncing::sync_options(out, *full);
            if *watch {
                store
                    .watch(opts, async {
                        let _ = tokio::signal::ctrl_c().await;
                    })
                    .await?;
                return Ok(ExitCode::SUCCESS);
            }
            let reports = crate::syncing::sync_passes(store, &opts, *passes, out).await?;
            let failed = reports.iter().any(|r| r.error.is_some());
            out.sync(&reports);
            if failed {
                return Ok(ExitCode::from(3));
            }
        }
        Command::Mcp(_) | Command::Serve => unreachable!("served by `serve`"),
        Command::Status => out.status(&store.stats().await?, &store.relays().await?, &store.behaviours()),
        Command::Index => {
            if !store.has_vectors() {
                bail!("no embedding model installed: run `memstr model install`, then `memstr index`");
            }
            out.indexed(&store.embed_pending(None, crate::output::embed_progress(out)).await?);
        }
        Command::Introspect => out.introspection(&store.persona_introspect().await?),
        Command::Prune => out.prune(&store.persona_prune().await?),
        Command::Compress { domain, max_tokens } => {
            let options =
                memstr::lifecycle::compress::CompressOptions { domain: domain.clone(), max_tokens: Some(*max_tokens) };
            out.compressed(&store.persona_compress_with(options).await?);
        }
        Command::Consolidate => out.consolidation(&store.consolidate().await?),
        Command::Episode(cmd) => return crate::episode::run(store, out, cmd).await,
        Command::Pin { reference } => {
            store.persona_pin(reference, true).await?;
            out.done(&format!("pinned {reference}"));
        }
        Command::Unpin { reference } => {
            store.persona_pin(reference, false).await?;
            out.done(&format!("unpinned {reference}"));
        }
        Command::Important { .. } | Command::Clusters | Command::Strength { .. } => {
            crate::strength::run(store, out, &args.command).await?
        }
        Command::Graph { reference } => out.neighbours(&store.graph_neighbours(reference).await?),
        Command::Fact(fact) => {
            let (domain, subject, attribute, value) = fact.address();
            match fact {
                FactCommand::Set { at, .. } => {
                    let value = value_arg(value.unwrap_or_default())?;
                    let id = match at {
                        Some(w) => store.fact_set_at(domain, subject, attribute, &value, w.at(now)).await?,
                        None => store.fact_set(domain, subject, attribute, &value).await?,
                    };
                    out.event_id(&id)
                }
                FactCommand::Get { .. } => match store.fact_get(domain, subject, attribute).await? {
                    Some(v) => out.value(&v),
                    None => {
                        out.not_found(&format!("{domain}/facts/{subject}:{attribute}"));
                        return Ok(ExitCode::from(1));
                    }
                },
                FactCommand::History { .. } => out.fact_history(&store.fact_history(domain, subject, attribute).await?),
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `memstr import --memories`: JSON Lines of plain memories, [`memstr::MAX_BATCH`] lines
/// to a transaction ([`MemoryStore::write_batch`]). A bad line stops the import before its
/// batch is written; the batches before it stay written, and the error says so.
async fn import_memories(store: &MemoryStore, out: &Out, input: Box<dyn Read + Send>) -> Result<()> {
    use std::io::BufRead;
    let mut reader = std::io::BufReader::with_capacity(64 << 10, input);
    let mut summary = crate::output::MemoryImport::default();
    let mut progress = crate::output::memory_import_progress(out);
    // The batch being read: its items and the line each came from.
    let (mut items, mut lines) = (Vec::new(), Vec::new());
    let mut raw = Vec::new();
    let mut number = 0u64;
    loop {
        raw.clear();
        let limit = memstr::MAX_IMPORT_LINE as u64 + 1;
        let read = (&mut reader).take(limit).read_until(b'\n', &mut raw).context("reading the import")?;
        let eof = read == 0;
        if !eof {
            number += 1;
            if raw.len() as u64 >= limit && raw.last() != Some(&b'\n') {
                bail!("{}", summary.stopped(number, &format!("longer than {} bytes", memstr::MAX_IMPORT_LINE)));
            }
            let Ok(text) = std::str::from_utf8(&raw) else { bail!("{}", summary.stopped(number, "not UTF-8")) };
            if !text.trim().is_empty() {
                match serde_json::from_str::<memstr::BatchItem>(text) {
                    Ok(item) => {
                        items.push(item);
                        lines.push(number);
                    }
                    Err(e) => bail!("{}", summary.stopped(number, &json_problem(&e))),
                }
            }
        }
        if items.len() == memstr::MAX_BATCH || (eof && !items.is_empty()) {
            let batch = std::mem::take(&mut items);
            let kinds = crate::output::MemoryImport::count(&batch);
            match store.write_batch(batch).await {
                Ok(_) => summary.written(kinds, number),
                Err(memstr::Error::BatchItem { index, source }) => {
                    bail!("{}", summary.stopped(lines[index], &source.to_string()))
                }
                Err(e) => bail!("{}: {e}", summary.stopped_at_batch(lines[0])),
            }
            lines.clear();
            progress(&summary);
        }
        if eof {
            break;
        }
    }
    out.memories_imported(&summary);
    Ok(())
}

/// serde_json's complaint about one line, without its "at line 1": the caller names the
/// line of the file.
fn json_problem(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rsplit_once(" at line ") {
        Some((problem, _)) if e.column() > 0 => format!("{problem} (column {})", e.column()),
        Some((problem, _)) => problem.to_string(),
        None => text,
    }
}

/// `memstr mcp` and `memstr serve`: answering the CLI's searches for this store on its
/// socket (unless --no-forward) while serving.
async fn serve(args: &Args, store: &MemoryStore, id: Identity) -> Result<()> {
    let listener = if args.no_forward { None } else { crate::forward::listen(&args.dir()?, store, id) };
    let served = match &args.command {
        Command::Mcp(mcp) => crate::mcp::run(mcp, store).await,
        _ => {
            match &listener {
                Some(_) => eprintln!(
                    "memstr: serving {} until SIGINT or SIGTERM; `memstr search` hands its searches here",
                    store.path().display()
                ),
                None => eprintln!("memstr: serving {} until SIGINT or SIGTERM", store.path().display()),
            }
            memstr::mcp::serve(store.clone(), memstr::mcp::Transport::None, crate::mcp::signals())
                .await
                .map_err(Into::into)
        }
    };
    if let Some(listener) = listener {
        listener.stop().await;
    }
    served
}

/// The library's query for `memstr search`'s arguments, with spans counted back from `now`
/// (the store's clock): the same here and in a server answering for this process.
pub(crate) fn search_query(search: &SearchArgs, now: f64) -> memstr::SearchQuery {
    let mut q = memstr::SearchQuery::new(search.query.as_deref().unwrap_or("")).limit(search.limit as usize);
    q.min_strength = search.min_strength;
    q.history = search.history;
    q.phrasings = search.phrasings.clone();
    q.hypothetical = search.hypothetical.clone();
    q.kinds = search
        .kinds
        .iter()
        .map(|k| match k {
            KindArg::Memory => memstr::search::Kind::Memory,
            KindArg::Journal => memstr::search::Kind::Journal,
            KindArg::Persona => memstr::search::Kind::Persona,
        })
        .collect();
    q.domain = search.domain.clone();
    q.facet = search.facet.clone();
    q.since = search.since.as_ref().map(|w| w.at(now));
    q.until = search.until.as_ref().map(|w| w.at(now));
    (q.types, q.tiers) = (search.types.clone(), search.tiers.clone());
    (q.context, q.with_context) = (search.context.clone(), search.with_context);
    q
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
            memory_type,
            goal_status,
            context,
        } => {
            let input = PersonaInput {
                themes: themes.clone(),
                connections: connections.clone(),
                source: source.clone(),
                confidence: *confidence,
                halflife_days: *halflife,
                importance: *importance,
                at: at.as_ref().map(|w| w.at(now)),
                memory_type: *memory_type,
                goal_status: *goal_status,
                context: context.clone(),
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
pub(crate) fn value_arg(v: &str) -> Result<std::borrow::Cow<'_, str>> {
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
