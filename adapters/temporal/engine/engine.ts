import { Client, defaultPayloadConverter, type Connection, type WorkflowClientInterceptor } from '@temporalio/client';
import type { CatalogDescription } from '../../../core/domain/catalog.js';
import { runAlreadyClosed, runNotFound, runStillRunning, WorkflowClosedError } from '../../../core/domain/errors.js';
import type { RequestIdempotency } from '../../../core/domain/idempotency.js';
import type { HistoryPage } from '../../../core/domain/history.js';
import type { PinnedRunRef, RunDescription, RunOutcome, RunRef, StartCommand } from '../../../core/domain/run.js';
import type { Clock } from '../../../ports/clock.js';
import type { AwaitOptions, ControlKeys, HistoryPageQuery, ListRunsQuery, RunList, RunStreamItem, WorkflowEngine } from '../../../ports/engine.js';
import { connectTemporal, type TemporalConnectionOptions } from '../connection.js';
import { FEEDBACK_SIGNAL, isInternalWorkflowType } from '../protocol.js';
import { awaitChainOutcome } from './awaitOutcome.js';
import { TemporalCalls } from './calls.js';
import { CatalogReader } from './catalogs.js';
import { followRunWithProgress } from './followProgress.js';
import { readHistoryPage } from './historyPage.js';
import { closeHistoryEvent, firstHistoryEvent } from './historyReader.js';
import { RunLister } from './listRuns.js';
import { checkOptions, type TemporalEngineOptions } from './options.js';
import { outcomeOf, timeOutLimitOf } from './outcome.js';
import { PageTokens } from '../../pageTokens.js';
import { resetToStep } from './reset.js';
import { isInternalRun, runDescriptionOf } from './runDescription.js';
import { RunStarter } from './runStarter.js';
import { TemporalSchedules } from './schedules.js';
import { alreadyDone, FEEDBACK_KEY_HEADER, feedbackRecord, keyPayload, resetMark, terminateDone, type KeyMark } from './requestKeys.js';
import { keyedRequestId } from './keyedRecords.js';
import { decodeFirst, toNumber } from './values.js';
import { enums, EventType, type Payload } from './proto.js';
import { randomUUID } from 'node:crypto';

/** How long a keyed feedback waits for its signal to leave Temporal's buffer (normally one workflow task). */
const SIGNAL_RECORD_WAIT_MS = 5_000;
const SIGNAL_RECORD_RECHECK_MS = 50;

/** What `connect` needs: the connection's options (connection.ts) and the engine's, minus the client it builds. */
export type TemporalEngineConnectOptions = TemporalConnectionOptions &
  Omit<TemporalEngineOptions, 'client'> & {
    /** Interceptors of the client's workflow calls (tracing: adapters/temporal/tracing.ts). */
    clientInterceptors?: WorkflowClientInterceptor[];
  };

/**
 * The WorkflowEngine on a Temporal cluster. The embedded engine (adapters/embedded) is the reference for semantics; the
 * differences Temporal forces are noted where they arise. Every request has a deadline or is cancelled with its
 * caller (calls.ts), and every Temporal error leaves as a core error (errors.ts).
 */
export class TemporalEngine implements WorkflowEngine {
  readonly kind = 'temporal';
  /** Keyed feedback, terminate and reset leave their key with Temporal (requestKeys.ts, reset.ts), for retries through any API replica. */
  readonly controlKeys: ControlKeys = 'kept-by-engine';
  private readonly calls: TemporalCalls;
  private readonly clock: Clock;
  private readonly tokens: PageTokens;
  private readonly starter: RunStarter;
  private readonly lister: RunLister;
  private readonly catalogs: CatalogReader;
  /** Temporal Schedules (schedules.ts). */
  readonly schedules: TemporalSchedules;
  private readonly progressPollMs: number;
  private readonly historyPageMaxBytes: number;
  private ownedConnection: Connection | undefined;
  private closing: Promise<void> | undefined;

  constructor(options: TemporalEngineOptions) {
    const checked = checkOptions(options);
    this.clock = checked.clock;
    this.progressPollMs = checked.progressPollMs;
    this.historyPageMaxBytes = checked.historyPageMaxBytes;
    this.calls = new TemporalCalls(checked.client, checked.namespace, checked.rpcTimeoutMs, checked.claimChecks);
    this.tokens = new PageTokens(checked.pageTokenSecret);
    this.lister = new RunLister(this.calls, this.tokens);
    this.catalogs = new CatalogReader({
      calls: this.calls,
      clock: checked.clock,
      logger: checked.logger,
      cacheMs: checked.catalogCacheMs,
      workerLivenessMs: checked.workerLivenessMs,
    });
    this.schedules = new TemporalSchedules(this.calls, this.tokens, (catalog, workflowName) => this.catalogs.runTimeoutMs(catalog, workflowName));
    this.starter = new RunStarter(
      this.calls,
      checked.clock,
      checked.logger,
      (catalog, workflowName) => this.catalogs.runTimeoutMs(catalog, workflowName),
      (run) => this.describeRun(run),
      // With claim checks any input the HTTP body cap lets through fits; without, Temporal's payload limit applies.
      checked.claimChecks ? undefined : checked.maxPayloadBytes,
    );
  }

  /** Connects (connection.ts: message limits, TLS, API key, connect deadline) and owns the connection it made. */
  static async connect(options: TemporalEngineConnectOptions): Promise<TemporalEngine> {
    const { address, apiKey, tls, transport, maxMessageBytes, connectTimeoutMs, clientInterceptors, ...engineOptions } = options;
    const connection = await connectTemporal({
      address,
      maxMessageBytes,
      ...(transport === undefined ? {} : { transport }),
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(tls === undefined ? {} : { tls }),
      ...(connectTimeoutMs === undefined ? {} : { connectTimeoutMs }),
    });
    try {
      const { claimChecks } = engineOptions;
      const client = new Client({
        connection,
        namespace: options.namespace,
        // Codecs run on every payload the client sends or receives (inputs, results, memos, signals).
        ...(claimChecks ? { dataConverter: { payloadCodecs: [claimChecks] } } : {}),
        ...(clientInterceptors ? { interceptors: { workflow: clientInterceptors } } : {}),
      });
      const engine = new TemporalEngine({ ...engineOptions, client });
      engine.ownedConnection = connection;
      return engine;
    } catch (error) {
      await connection.close();
      throw error;
    }
  }

  start(command: StartCommand): Promise<RunDescription> {
    return this.starter.start(command);
  }

  awaitOutcome(run: PinnedRunRef, options: AwaitOptions): Promise<RunOutcome | undefined> {
    return awaitChainOutcome({ calls: this.calls, clock: this.clock, describe: (ref, signal) => this.describeRun(ref, signal) }, run, options);
  }

  describe(run: RunRef): Promise<RunDescription> {
    return this.describeRun(run);
  }

  async getOutcome(ref: RunRef): Promise<RunOutcome> {
    const run = await this.describeRun(ref);
    const { workflowId, runId } = run;
    if (run.status === 'running') throw runStillRunning(workflowId, runId);
    const close = await closeHistoryEvent(this.calls, { workflowId, runId });
    return outcomeOf(run, close, await timeOutLimitOf(close, () => firstHistoryEvent(this.calls, { workflowId, runId }, { skipPayloads: true })));
  }

  async getInput(run: PinnedRunRef): Promise<unknown> {
    const started = (await firstHistoryEvent(this.calls, run))?.workflowExecutionStartedEventAttributes;
    if (!started || isInternalWorkflowType(started.workflowType?.name)) throw runNotFound(run.workflowId, run.runId);
    return decodeFirst(started.input);
  }

  async historyPage(ref: RunRef, query: HistoryPageQuery): Promise<{ run: RunDescription; page: HistoryPage }> {
    const run = await this.describeRun(ref);
    const page = await readHistoryPage(this.calls, this.tokens, { workflowId: run.workflowId, runId: run.runId }, query, this.historyPageMaxBytes);
    return { run, page };
  }

  followRun(run: PinnedRunRef, afterEventId: number, signal: AbortSignal): AsyncIterable<RunStreamItem> {
    return followRunWithProgress(this.calls, run, Math.max(0, Math.floor(afterEventId)), signal, this.progressPollMs, this.historyPageMaxBytes);
  }

  listRuns(query: ListRunsQuery): Promise<RunList> {
    return this.lister.list(query);
  }

  // Cancel and terminate go through the raw service: the client's handle sends its own identity, never a key's
  // (identity.ts). The client's interceptors only add trace headers to starts and signals, which these are not.
  async cancel(ref: RunRef, identity?: string): Promise<RunDescription> {
    const run = await this.openRun(ref);
    const { workflowId, runId } = run;
    await this.calls.call(
      () =>
        this.calls.service.requestCancelWorkflowExecution({
          namespace: this.calls.namespace,
          workflowExecution: { workflowId, runId },
          requestId: randomUUID(),
          identity: this.calls.identityFor(identity),
        }),
      { workflowId, runId, closedIfGone: true },
    );
    return run;
  }

  async terminate(ref: RunRef, reason: string, idempotency?: RequestIdempotency, identity?: string): Promise<RunDescription> {
    if (idempotency) return this.terminateWithKey(ref, reason, idempotency, identity);
    const run = await this.openRun(ref);
    await this.sendTerminate(run, reason, identity);
    return { ...run, status: 'terminated', closedAt: new Date(this.clock.now()) };
  }

  async reset(ref: RunRef, stepName: string, reason: string, idempotency?: RequestIdempotency, identity?: string): Promise<PinnedRunRef> {
    if (idempotency) return this.resetWithKey(ref, stepName, reason, idempotency, identity);
    const run = await this.describeRun(ref);
    return resetToStep(this.calls, { workflowId: run.workflowId, runId: run.runId }, stepName, reason, undefined, identity);
  }

  async deliverFeedback(workflowId: string, payload: unknown, idempotency?: RequestIdempotency, identity?: string): Promise<PinnedRunRef> {
    if (idempotency) return this.deliverFeedbackWithKey(workflowId, payload, idempotency, identity);
    const { runId } = await this.openRun({ workflowId });
    const ref = { workflowId, runId };
    // Signalled to that exact run: a reply must not land in a newer run the caller never saw.
    if (identity === undefined) {
      await this.calls.call(() => this.calls.workflows.getHandle(workflowId, runId).signal(FEEDBACK_SIGNAL, payload), { ...ref, closedIfGone: true });
    } else {
      await this.signalFeedback(ref, payload, { identity });
    }
    return ref;
  }

  describeCatalog(catalog: string): Promise<CatalogDescription | undefined> {
    return this.catalogs.describe(catalog);
  }

  catalogsWithWorkflow(workflowName: string): Promise<string[]> {
    return this.catalogs.catalogsWith(workflowName);
  }

  async health(signal: AbortSignal): Promise<void> {
    // DescribeNamespace rather than GetSystemInfo: it also proves the configured namespace exists.
    await this.calls.call(() => this.calls.service.describeNamespace({ namespace: this.calls.namespace }), {}, { signal });
  }

  /**
   * Cancels requests in flight (followers end, awaiters resolve undefined, as on the embedded engine) and closes the
   * connection when `connect` made it. Safe to call twice.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.calls.close();
      await this.ownedConnection?.close();
    })();
    return this.closing;
  }

  /** Terminate through the raw service, which takes a key's identity (and a keyed terminate's details). */
  private async sendTerminate(run: PinnedRunRef, reason: string, identity: string | undefined, details?: Payload[]): Promise<void> {
    const { workflowId, runId } = run;
    await this.calls.call(
      () =>
        this.calls.service.terminateWorkflowExecution({
          namespace: this.calls.namespace,
          workflowExecution: { workflowId, runId },
          reason,
          ...(details ? { details: { payloads: details } } : {}),
          identity: this.calls.identityFor(identity),
        }),
      { workflowId, runId, closedIfGone: true },
    );
  }

  /** A keyed terminate: its key goes into the terminate's details, where a retry from any API replica finds it. */
  private async terminateWithKey(ref: RunRef, reason: string, idempotency: RequestIdempotency, identity: string | undefined): Promise<RunDescription> {
    const run = await this.describeRun(ref);
    const { workflowId, runId } = run;
    const done = async (closed: RunDescription) => closed.status === 'terminated' && (await terminateDone(this.calls, closed, idempotency, this.clock.now()));
    if (run.status !== 'running') {
      if (await done(run)) return run;
      throw runAlreadyClosed(workflowId, runId, run.status);
    }
    try {
      await this.sendTerminate(run, reason, identity, [keyPayload(idempotency)]);
    } catch (error) {
      // Closed in between: perhaps by the same request through another API replica.
      const closed = error instanceof WorkflowClosedError ? await this.describeRun({ workflowId, runId }) : undefined;
      if (closed && (await done(closed))) return closed;
      throw error;
    }
    return { ...run, status: 'terminated', closedAt: new Date(this.clock.now()) };
  }

  /**
   * A keyed reset: its key's record goes into the reset's reason, and its request id is derived from the key alone
   * (keyedRecords.ts). Temporal keeps the request id that made a run, so describing the latest run of the id tells,
   * without reading its history, whether this key made it; only then is its reset mark read (newest first) for the
   * record: the same run, or 409 for another body. Duplicates racing past that look send the same request id, which
   * Temporal answers with the one run it made; the mark in it says whether that request was this one.
   */
  private async resetWithKey(ref: RunRef, stepName: string, reason: string, idempotency: RequestIdempotency, identity: string | undefined): Promise<PinnedRunRef> {
    const { run: latest, made: latestMadeBy } = await this.describeWithRequestIds({ workflowId: ref.workflowId });
    const latestRef = { workflowId: latest.workflowId, runId: latest.runId };
    // Runs reset by an earlier release carry the key's digest itself as their request id.
    const madeByKey = latestMadeBy.has(keyedRequestId('reset', idempotency.key)) || latestMadeBy.has(idempotency.key);
    if (latest.runId !== ref.runId && madeByKey && (await this.resetRecognised(latestRef, idempotency))) return latestRef;
    const run = ref.runId === undefined ? latest : await this.describeRun(ref);
    const made = await resetToStep(this.calls, { workflowId: run.workflowId, runId: run.runId }, stepName, reason, idempotency, identity);
    await this.resetRecognised(made, idempotency);
    return made;
  }

  private async resetRecognised(run: PinnedRunRef, idempotency: RequestIdempotency): Promise<boolean> {
    const mark = await resetMark(this.calls, run);
    return alreadyDone(mark?.record, mark?.at, idempotency, this.clock.now());
  }

  /**
   * A keyed feedback: the key's record travels in the signal's header, and its request id is derived from the key
   * alone (keyedRecords.ts), so Temporal delivers at most one signal per key to a run, whatever body comes with it,
   * and drops a retry's signal even once the run closed. The signal is therefore sent whether the run is open or not
   * (a closed run that never saw the key answers WorkflowClosedError, as without a key); then the record is read
   * back, newest first, to tell a retry (the same answer and expiry) from another body with the key (409).
   */
  private async deliverFeedbackWithKey(workflowId: string, payload: unknown, idempotency: RequestIdempotency, identity: string | undefined): Promise<PinnedRunRef> {
    const { run, historyLength } = await this.describeWithRequestIds({ workflowId });
    const ref = { workflowId, runId: run.runId };
    await this.signalFeedback(ref, payload, { idempotency, identity });
    const mark = await this.feedbackMark(ref, idempotency.key, historyLength);
    alreadyDone(mark?.record, mark?.at, idempotency, this.clock.now());
    return ref;
  }

  /**
   * The key's feedback record in the run. A signal delivered by this request is recorded after the `before` events
   * the run had when it was described, so those are read first; Temporal holds a signal that arrives while a workflow
   * task is in flight until the task ends, so while one is, the newest events are read again. With none in flight and
   * no record among them, Temporal dropped this request's signal as a retry's: the record is older, and the events
   * since it are read.
   */
  private async feedbackMark(ref: PinnedRunRef, key: string, before: number): Promise<KeyMark | undefined> {
    // A wall-clock deadline: the engine's clock may be a test's virtual one.
    const deadline = Date.now() + SIGNAL_RECORD_WAIT_MS;
    for (;;) {
      const recent = await feedbackRecord(this.calls, ref, key, before);
      if (recent) return recent;
      if (Date.now() > deadline || !(await this.workflowTaskInFlight(ref))) return feedbackRecord(this.calls, ref, key);
      await new Promise((resolve) => setTimeout(resolve, SIGNAL_RECORD_RECHECK_MS));
    }
  }

  private async workflowTaskInFlight(ref: PinnedRunRef): Promise<boolean> {
    const response = await this.calls.call(
      () => this.calls.service.describeWorkflowExecution({ namespace: this.calls.namespace, execution: ref }),
      { workflowId: ref.workflowId, runId: ref.runId },
    );
    return response.pendingWorkflowTask?.state === enums.PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_STARTED;
  }

  /**
   * The feedback signal through the raw service, for what the client's signal cannot carry: an Idempotency-Key's
   * request id and header, a key's identity. So the claim-check codec is applied here, as the client applies it
   * otherwise, and the client's interceptors (tracing) are run around it.
   */
  private async signalFeedback(
    ref: PinnedRunRef,
    payload: unknown,
    { idempotency, identity }: { idempotency?: RequestIdempotency; identity: string | undefined },
  ): Promise<void> {
    const raw = defaultPayloadConverter.toPayload(payload);
    const [encoded] = this.calls.claimChecks ? await this.calls.claimChecks.encode([raw]) : [raw];
    const keyHeader: Record<string, Payload> = idempotency ? { [FEEDBACK_KEY_HEADER]: keyPayload(idempotency) } : {};
    const signal = { signalName: FEEDBACK_SIGNAL, args: [payload], workflowExecution: ref, headers: keyHeader };
    await this.calls.interceptedSignal(signal, ({ headers }) =>
      this.calls.call(
        () =>
          this.calls.service.signalWorkflowExecution({
            namespace: this.calls.namespace,
            workflowExecution: ref,
            signalName: FEEDBACK_SIGNAL,
            input: { payloads: [encoded!] },
            header: { fields: { ...headers } },
            // The key's digest, as earlier releases sent it: a retry across an upgrade is still dropped by Temporal.
            requestId: idempotency?.key ?? randomUUID(),
            identity: this.calls.identityFor(identity),
          }),
        { workflowId: ref.workflowId, runId: ref.runId, closedIfGone: true },
      ).then(() => {}),
    );
  }

  private async describeRun(ref: RunRef, signal?: AbortSignal): Promise<RunDescription> {
    return (await this.describeWithRequestIds(ref, signal)).run;
  }

  /** The run, with what the same answer says of it beyond its description: its length and the request ids that made it. */
  private async describeWithRequestIds(ref: RunRef, signal?: AbortSignal): Promise<{ run: RunDescription; historyLength: number; made: ReadonlySet<string> }> {
    const { workflowId, runId } = ref;
    const response = await this.calls.call(
      () => this.calls.service.describeWorkflowExecution({ namespace: this.calls.namespace, execution: { workflowId, runId: runId ?? '' } }),
      { workflowId, ...(runId ? { runId } : {}) },
      signal ? { signal } : {},
    );
    const info = response.workflowExecutionInfo;
    if (!info || isInternalRun(info)) throw runNotFound(workflowId, runId);
    const historyLength = toNumber(info.historyLength);
    const made = new Set(
      Object.entries(response.workflowExtendedInfo?.requestIdInfos ?? {})
        .filter(([, request]) => request.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED)
        .map(([requestId]) => requestId),
    );
    const run = runDescriptionOf(info);
    if (info.firstRunId) return { run, historyLength, made };
    // Servers that do not report firstRunId still record it in the run's first event.
    const started = (await firstHistoryEvent(this.calls, run, { skipPayloads: true }))?.workflowExecutionStartedEventAttributes;
    return { run: { ...run, firstRunId: started?.firstExecutionRunId || run.runId }, historyLength, made };
  }

  /** The run, which must still be open: WorkflowClosedError otherwise. */
  private async openRun(ref: RunRef): Promise<RunDescription> {
    const run = await this.describeRun(ref);
    if (run.status !== 'running') throw runAlreadyClosed(run.workflowId, run.runId, run.status);
    return run;
  }
}
