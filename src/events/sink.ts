import fs from 'node:fs'
import path from 'node:path'
import {ExpError} from '../errors/index.js'
import {makeRedactor, redactDeep, type Redact, type RedactOptions} from '../redact/index.js'
import type {ExpEvent, ExpEventInput} from './types.js'

/**
 * Where lifecycle events go. Producers check `enabled` before building an event, so a
 * run without a sink pays one property read per episode.
 */
export interface EventSink {
  readonly enabled: boolean
  emit(e: ExpEventInput): void
  /** ids that must not appear in any later event (e.g. held-out scenario ids) */
  hide(ids: readonly string[]): void
  close(): Promise<void>
}

export const NULL_SINK: EventSink = {
  enabled: false,
  emit: () => undefined,
  hide: () => undefined,
  close: async () => undefined,
}

export interface SinkOptions extends Omit<RedactOptions, 'private'> {
  /** the clock, from outside */
  now?: () => Date
}

/** Numbers, stamps and redacts events; subclasses only decide where the line goes. */
abstract class RedactingSink implements EventSink {
  readonly enabled = true
  private seq = 0
  private hidden: string[] = []
  private redact: Redact

  constructor(private readonly opts: SinkOptions) {
    this.redact = makeRedactor(opts)
  }

  hide(ids: readonly string[]): void {
    this.hidden.push(...ids)
    this.redact = makeRedactor({...this.opts, private: this.hidden})
  }

  emit(e: ExpEventInput): void {
    const at = (this.opts.now ?? (() => new Date()))().toISOString()
    // redacted before anything is written: a secret never reaches the file, even partially
    this.write(JSON.stringify(redactDeep({seq: ++this.seq, at, ...e}, this.redact)) + '\n')
  }

  protected abstract write(line: string): void
  abstract close(): Promise<void>
}

/** Appends JSON Lines to a file, one synchronous write per event (a crash loses none). */
export class FileSink extends RedactingSink {
  private fd: number

  constructor(readonly file: string, opts: SinkOptions = {}) {
    super(opts)
    try {
      fs.mkdirSync(path.dirname(file), {recursive: true})
      // a FIFO with no reader: said, not waited for (the open waited in this thread, where not
      // even SIGTERM ended it); with one, events go to it as to any pipe
      if (fs.statSync(file, {throwIfNoEntry: false})?.isFIFO()) fs.closeSync(fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK))
      // (O_NOFOLLOW: a symbolic link at the name is refused, never appended through)
      this.fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_APPEND | fs.constants.O_NOFOLLOW, 0o644)
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      const why = code === 'ELOOP' ? 'it is a symbolic link (exp appends only to a regular file, never through a link)' : code === 'ENXIO' ? 'it is a FIFO that no process reads' : (e as Error).message
      throw new ExpError('E_USAGE', `cannot open the events file ${file}: ${why}`, {hint: 'pass a writable path to --events (or EXP_EVENTS)'})
    }
  }

  protected write(line: string): void {
    fs.writeSync(this.fd, line)
  }

  async close(): Promise<void> {
    fs.closeSync(this.fd)
  }
}

/** Keeps the lines in memory (tests, and callers that forward events elsewhere). */
export class MemorySink extends RedactingSink {
  readonly lines: string[] = []

  protected write(line: string): void {
    this.lines.push(line)
  }

  get events(): ExpEvent[] {
    return this.lines.map(l => JSON.parse(l) as ExpEvent)
  }

  async close(): Promise<void> {}
}

/** The sink a command asked for: --events FILE, else EXP_EVENTS, else none. */
export function openEventSink(file: string | undefined, o: SinkOptions & {cwd?: string} = {}): EventSink {
  const env = o.env ?? process.env
  const target = file ?? env.EXP_EVENTS
  if (!target) return NULL_SINK
  return new FileSink(path.resolve(o.cwd ?? process.cwd(), target), {...o, env})
}
