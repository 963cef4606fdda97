/**
 * The MCP server's own small client of Trawl's public HTTP API (ARCHITECTURE.md: the MCP server
 * uses only that API). An error answer becomes an `ApiError` carrying the contract's body, so a
 * tool can hand `error` and `detail` to the model unchanged.
 */

export interface ApiErrorBody {
  error: string;
  detail?: string;
  retry_after?: number;
}

export class ApiError extends Error {
  readonly status: number;
  readonly body: ApiErrorBody;

  constructor(status: number, body: ApiErrorBody) {
    super(body.detail ?? body.error);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
  }
}

/** Codes whose contract body has no `detail`: the model still gets a sentence saying what to do. */
const DEFAULT_DETAIL: Record<string, string> = {
  unauthorized:
    'the Trawl API key was refused (missing, unknown or revoked); set TRAWL_API_KEY to a valid key (trawl keys create --email …)',
  insufficient_credits:
    'the Trawl account has no credits left; add some (trawl credits add --email … N) and call again',
  internal_error: 'the Trawl server failed on this request; calling again may work, and its log has the request id',
};

/** Every call to the API gives up after this long, whatever the endpoint's own budget (crawl: 300 s). */
const CALL_TIMEOUT_MS = 330_000;

export interface TrawlApiOptions {
  baseUrl: string;
  key?: string;
  userAgent?: string;
}

export class TrawlApi {
  readonly #base: string;
  readonly #key?: string;
  readonly #userAgent: string;

  constructor(o: TrawlApiOptions) {
    this.#base = o.baseUrl.replace(/\/+$/, '');
    this.#key = o.key;
    this.#userAgent = o.userAgent ?? 'trawl-mcp';
  }

  get<T = unknown>(path: string, signal?: AbortSignal): Promise<T> {
    return this.request<T>('GET', path, undefined, signal);
  }

  post<T = unknown>(path: string, body: unknown, signal?: AbortSignal): Promise<T> {
    return this.request<T>('POST', path, body, signal);
  }

  delete<T = unknown>(path: string, signal?: AbortSignal): Promise<T> {
    return this.request<T>('DELETE', path, undefined, signal);
  }

  async request<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    if (!this.#key)
      throw new ApiError(401, {
        error: 'unauthorized',
        detail:
          'no Trawl API key: set TRAWL_API_KEY in the MCP server\'s environment (or send "Authorization: Bearer trawl_…" to its HTTP endpoint)',
      });
    const timeout = AbortSignal.timeout(CALL_TIMEOUT_MS);
    let res: Response;
    try {
      res = await fetch(`${this.#base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.#key}`,
          'user-agent': this.#userAgent,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (e) {
      if (signal?.aborted)
        throw new ApiError(499, { error: 'cancelled', detail: 'the call was cancelled by the client' });
      if (timeout.aborted)
        throw new ApiError(504, {
          error: 'timeout',
          detail: `the Trawl server at ${this.#base} did not answer within ${CALL_TIMEOUT_MS / 1000} s`,
        });
      throw new ApiError(502, {
        error: 'fetch_failed',
        detail: `could not reach the Trawl server at ${this.#base}: ${causeOf(e)}; check TRAWL_API_URL and that the server runs`,
      });
    }
    const text = await res.text().catch(() => '');
    let answer: { error?: unknown; detail?: unknown; retry_after?: unknown } | undefined;
    try {
      answer = text ? JSON.parse(text) : {};
    } catch {
      answer = undefined;
    }
    if (res.ok && answer && typeof answer === 'object') return answer as T;
    if (answer && typeof answer.error === 'string') {
      const err: ApiErrorBody = {
        error: answer.error,
        detail: typeof answer.detail === 'string' ? answer.detail : DEFAULT_DETAIL[answer.error],
      };
      // The server names the cause; the model also needs to hear where this server's key comes from.
      if (answer.error === 'unauthorized' && typeof answer.detail === 'string')
        err.detail = `${answer.detail} (this MCP server sends the key set in TRAWL_API_KEY)`;
      if (typeof answer.retry_after === 'number') {
        err.retry_after = answer.retry_after;
        err.detail = `the Trawl API key's rate limit was reached; call again in ${answer.retry_after} s`;
      }
      throw new ApiError(res.status, err);
    }
    // Not Trawl's JSON (a proxy's error page, a wrong TRAWL_API_URL): say what answered.
    throw new ApiError(res.status >= 400 ? res.status : 502, {
      error: 'fetch_failed',
      detail: `${this.#base}${path} answered HTTP ${res.status} without a Trawl JSON body; is TRAWL_API_URL a Trawl server?`,
    });
  }
}

/** undici hides the useful part (ECONNREFUSED …) in `cause`. */
function causeOf(e: unknown): string {
  const err = e as { message?: string; cause?: { code?: string; message?: string } };
  return err.cause?.code ?? err.cause?.message ?? err.message ?? String(e);
}
