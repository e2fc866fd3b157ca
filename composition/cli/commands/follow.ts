import { textOption } from '../command.js';
import { applyFollowEvent, emptyFollowView, renderFollowView, type FollowView } from '../render/follow.js';
import { apiCommand, exitCodeOf } from './api.js';

/** How often the terminal view is redrawn between events, so running steps' durations move. */
const REDRAW_EVERY_MS = 1000;

export const followCommand = apiCommand({
  name: 'follow',
  summary: "a run's steps live until it closes (exit 0 completed, 1 otherwise)",
  synopsis: 'WORKFLOW_ID [--run RID] [--json]',
  arguments: ['WORKFLOW_ID'],
  description: [
    "Follows the history stream of the latest run of WORKFLOW_ID (or of --run RID) until the run closes. On a",
    'terminal: a table of its steps (state, attempt, duration, latest progress) redrawn in place. Piped, or with',
    '--json: one JSON line per event, {"event", "id", "data"}, as the stream sends them. A dropped connection is',
    'resumed after the last event. Without --run, a run that continues as new is followed into its next run.',
    'Exit status 0 when the run completed, 1 when it ended otherwise.',
  ].join('\n'),
  options: { run: { type: 'string', value: 'RID', description: 'the run (default: the latest run, and the runs it continues as)' } },
  async run(session, values, [workflowId], context) {
    const pinned = textOption(values.run, 'run');
    const live = !session.json && context.stdoutIsTTY === true;
    let view: FollowView = emptyFollowView();
    let drawnLines = 0;
    const draw = () => {
      const width = Math.max(20, (context.terminalColumns ?? 120) - 1);
      const lines = renderFollowView(view).trimEnd().split('\n').map((line) => (line.length > width ? `${line.slice(0, width - 1)}…` : line));
      // Back to the first line of the previous frame, clear from there down, draw the new one.
      context.stdout(`${drawnLines > 0 ? `\x1b[${drawnLines}A\r\x1b[J` : ''}${lines.join('\n')}\n`);
      drawnLines = lines.length;
    };
    const timer = live ? setInterval(draw, REDRAW_EVERY_MS) : undefined;
    try {
      for (;;) {
        let closedAs: string | undefined;
        for await (const event of session.client.follow(workflowId!, pinned ? { runId: pinned } : {})) {
          if (!live) session.printJson(event);
          view = applyFollowEvent(view, event);
          if (live) draw();
          if (event.event === 'done') closedAs = event.data.status;
        }
        // The next run of the chain is the id's latest run now; a fresh view for it.
        if (closedAs === 'continued_as_new' && !pinned) {
          view = emptyFollowView();
          if (live) drawnLines = 0;
          continue;
        }
        return exitCodeOf(closedAs ?? 'unknown');
      }
    } finally {
      if (timer) clearInterval(timer);
    }
  },
});
