//! Saving a pending run and restoring it: `Pending::to_bytes` wraps the
//! runtime's snapshot in the host's sealed envelope ([`crate::snapshot`]),
//! `Engine::restore` opens it against the same program, person and store,
//! and `consume` makes each snapshot resume once.

use writ_lang::Code;
use writ_runtime::RunError;

use super::{Drive, Pending, Run, Step};
use crate::engine::{Compiled, Engine, RunOptions, unavailable};
use crate::policy::Policy;
use crate::policy_host::clean;
use crate::snapshot;
use crate::store::Store;

/// Record in the store that the snapshot `nonce` is resumed: before the
/// restored run carries anything out (its pending operation replied to,
/// or a later one carried out), or once its pending operation is denied
/// by the restoring policy (the denial is audited; a second restore is
/// refused before anything). `E4009` if it was resumed already: of two
/// restores of one snapshot, one goes on.
pub(super) fn consume(store: &mut Store, nonce: &str) -> Result<(), RunError> {
    match store.mark_resumed(nonce) {
        Ok(true) => Ok(()),
        Ok(false) => Err(snapshot::refused(
            "a snapshot not resumed before",
            "one that was resumed already (each snapshot resumes once)",
        )),
        Err(e) => Err(unavailable(format!(
            "the store could not record that the snapshot is resumed: {e}"
        ))),
    }
}

impl Pending<'_> {
    /// The paused run as bytes, to restore later with [`Engine::restore`],
    /// in this process or another (see the `snapshot` module for the
    /// format): the machine's state with its values, frames, handlers and
    /// captured continuations, the limits it has used, the run's output,
    /// operations, audit ids and payments so far, the program's hash and
    /// the principal's id, sealed with the store's key. The bytes hold
    /// what the program read: keep them as the store is kept. At most
    /// about twice the memory limit (else the memory limit's `E5002`).
    ///
    /// Taking a snapshot does not end the run, but the run and its
    /// snapshot go on once between them: whichever is replied to first
    /// (this pending operation, or the snapshot restored) uses the
    /// snapshot up, and the other is refused (`E4009`) before it carries
    /// anything out. A second snapshot uses up the first.
    ///
    /// A run of an approved plan is not saved (`E4009`): a snapshot does
    /// not hold how far through its plan the run is, and a run restored
    /// without it would no longer be bound to the plan's acts. Fail
    /// closed: reply to it where it is.
    pub fn to_bytes(&mut self) -> Result<Vec<u8>, RunError> {
        if self.run.plan.is_some() {
            return Err(RunError::new(
                Code::SnapshotRefused,
                "expected a run that can be saved, found a run of an approved plan: its snapshot would not hold how far through the plan it is".to_string(),
            )
            .with_help("reply to the paused operation where it is; a run of an approved plan is not saved and restored"));
        }
        let runtime = self.paused.to_bytes()?;
        let state = &mut self.run.state;
        let store_error = |e: crate::store::StoreError| {
            unavailable(format!("the snapshot could not be sealed: {e}"))
        };
        let key = state.store.snapshot_key().map_err(store_error)?;
        let nonce = state.store.nonce().map_err(store_error)?;
        // This run and the snapshot's are one run: whichever goes on first
        // uses the snapshot up (this one, at its next reply). A snapshot
        // this run was restored from, or made before, is used up now.
        if let Some(earlier) = state.restored_from.replace(nonce.clone()) {
            consume(&mut state.store, &earlier)?;
        }
        let envelope = snapshot::Envelope {
            program: self.run.program.identity(),
            principal: self.run.policy.principal.id.clone(),
            nonce,
            paid_this_run: state.paid_this_run,
            used_recorded: state.used_recorded,
            output: state.output.clone(),
            operations: state.operations.clone(),
            audit_ids: state.audit_ids.clone(),
            pause_at: self.run.pause_at.clone().unwrap_or_default(),
        };
        Ok(snapshot::seal(&envelope, &runtime, &key))
    }
}

impl Engine {
    /// A run again from the bytes [`Pending::to_bytes`] made of it, with
    /// the same program, under `policy` (the same person's), against the
    /// same store (`options.store`, or the policy's): paused at the
    /// operation it was paused at, decided again by `policy` (an
    /// operation the policy now denies is not handed out: the run goes on
    /// past its denial), then handed out at the operations
    /// `options.pause_at` names (the snapshot holds those the run was
    /// started with: [`saved_pause_at`](crate::engine::saved_pause_at)
    /// reads them). `options.inputs` is not used (the run
    /// has its values). Bytes that are not a snapshot, of another format,
    /// Writ version, program or person, sealed by another store, changed,
    /// cut short, or already resumed are refused (`E4009`), and nothing
    /// runs.
    ///
    /// ```
    /// use writ_host::engine::{Engine, PauseAt, Reply, RunOptions, Step};
    ///
    /// let engine = Engine::new();
    /// let policy = engine
    ///     .parse_policy("[principal]\nid = \"a\"\nrole = \"r\"\n\n[grants.Log]\n\n[grants.Confirm]\n")
    ///     .expect("a valid policy");
    /// let program = engine
    ///     .check("Log.info(\"asking\")\nif Confirm.ask(\"Go?\") { \"went\" } else { \"stayed\" }\n", &policy)
    ///     .expect("accepted");
    /// let db = std::env::temp_dir().join(format!("writ-restore-{}.db", std::process::id()));
    /// let options = RunOptions {
    ///     store: Some(db.display().to_string()),
    ///     pause_at: PauseAt::Only(vec!["Confirm".into()]),
    ///     ..RunOptions::default()
    /// };
    /// let Ok(Step::Paused(mut pending)) = engine.start(&program, &policy, &options)
    /// else { panic!("expected a pause") };
    /// let bytes = pending.to_bytes().expect("a snapshot");
    /// drop(pending);
    ///
    /// // Later, perhaps in another process:
    /// let Ok(Step::Paused(pending)) = engine.restore(&program, &policy, &bytes, &options)
    /// else { panic!("expected the pause again") };
    /// assert_eq!((pending.operation(), pending.output()), ("Confirm.ask", &["asking".to_string()][..]));
    /// let Ok(Step::Done(outcome)) = pending.resume(Reply::Answer(serde_json::json!(true)))
    /// else { panic!("expected the end") };
    /// assert_eq!(outcome.result.ok().as_deref(), Some("\"went\""));
    ///
    /// // A snapshot resumes once.
    /// let refused = engine.restore(&program, &policy, &bytes, &options).unwrap_err();
    /// assert_eq!(refused.code.as_str(), "E4009");
    /// # let _ = std::fs::remove_file(db);
    /// ```
    pub fn restore<'a>(
        &'a self,
        program: &'a Compiled,
        policy: &'a Policy,
        bytes: &[u8],
        options: &RunOptions,
    ) -> Result<Step<'a>, RunError> {
        snapshot::check_kind(bytes)?;
        self.check_pause_at(&options.pause_at)?;
        // Through the engine, as a run's store is: counted among its
        // connections, and kept for a later run when this one ends.
        let (mut store, recorded, kept_as) = self.open_store(policy, options)?;
        let key = store
            .snapshot_key()
            .map_err(|e| unavailable(format!("the store's snapshot key could not be read: {e}")))?;
        let (envelope, runtime) = snapshot::open(bytes, &key)?;
        if envelope.program != program.identity() {
            return Err(if program.inputs.is_empty() {
                snapshot::refused(
                    &format!("a snapshot of this program (hash {})", program.hash),
                    &format!("one of another program (hash {})", clean(&envelope.program)),
                )
            } else {
                snapshot::refused(
                    &format!(
                        "a snapshot of this program (hash {}) checked with these inputs' types",
                        program.hash
                    ),
                    "one of another program, or of this one checked with other inputs' types",
                )
            });
        }
        if envelope.principal != policy.principal.id {
            return Err(snapshot::refused(
                &format!("a snapshot of a run for {}", clean(&policy.principal.id)),
                &format!("one of a run for {}", clean(&envelope.principal)),
            ));
        }
        if store.was_resumed(&envelope.nonce).map_err(|e| {
            unavailable(format!(
                "the store could not say whether the snapshot was resumed: {e}"
            ))
        })? {
            return Err(snapshot::refused(
                "a snapshot not resumed before",
                "one that was resumed already (each snapshot resumes once)",
            ));
        }
        let paused = writ_runtime::restore(
            program.module(),
            runtime,
            &policy.limits,
            options.cancel.as_ref(),
        )?;
        let mut run = Run::new(
            self,
            (program, policy),
            options,
            Some(options.pause_at.clone()),
            (store, recorded),
        );
        run.state.output = envelope.output;
        run.state.operations = envelope.operations;
        run.state.audit_ids = envelope.audit_ids;
        run.state.paid_this_run = envelope.paid_this_run;
        run.state.used_recorded = envelope.used_recorded;
        run.state.restored_from = Some(envelope.nonce);
        run.state.kept_as = kept_as;
        let mut no_log = |_: &str| {};
        let mut drive = Drive {
            run: &mut run,
            log: &mut no_log,
            ready: None,
            carry: false,
            hand_out: true,
        };
        let driven = paused.hand_back(&mut drive);
        let ready = drive.ready.take();
        Ok(run.step(driven, ready))
    }
}
