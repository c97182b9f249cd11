// A real smart-HTTP git remote for tests: Node http on 127.0.0.1 -> `git http-backend` (CGI).
import http from 'node:http'
import {spawn} from 'node:child_process'

/** With `auth`, every request must carry HTTP Basic credentials (or this Authorization header): else 401, as a hosted remote answers. */
export function startGitHttpServer(projectRoot: string, o: {auth?: {username: string; password: string}; requests?: {authorization?: string}[]} = {}): Promise<{url: string; close: () => Promise<void>}> {
  const want = o.auth ? `Basic ${Buffer.from(`${o.auth.username}:${o.auth.password}`).toString('base64')}` : undefined
  const server = http.createServer((req, res) => {
    o.requests?.push({authorization: req.headers.authorization})
    // (the scheme's case does not matter: actions/checkout sends `basic`)
    if (want && req.headers.authorization?.replace(/^basic /i, 'Basic ') !== want) {
      res.writeHead(401, {'WWW-Authenticate': 'Basic realm="git"'})
      return void res.end('credentials, please')
    }
    const u = new URL(req.url ?? '/', 'http://127.0.0.1')
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      GIT_PROJECT_ROOT: projectRoot,
      GIT_HTTP_EXPORT_ALL: '1',
      REQUEST_METHOD: req.method,
      PATH_INFO: decodeURIComponent(u.pathname),
      QUERY_STRING: u.search.slice(1),
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
      REMOTE_USER: 'test', // lets receive-pack (push) through without http.receivepack
      GIT_PROTOCOL: (req.headers['git-protocol'] as string | undefined) ?? '',
      HTTP_CONTENT_ENCODING: (req.headers['content-encoding'] as string | undefined) ?? '',
    }
    if (req.headers['content-length']) env.CONTENT_LENGTH = req.headers['content-length']
    const cgi = spawn('git', ['http-backend'], {env})
    req.pipe(cgi.stdin)
    let head = Buffer.alloc(0)
    let headersDone = false
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) return void res.write(chunk)
      head = Buffer.concat([head, chunk])
      const sep = head.indexOf('\r\n\r\n')
      if (sep < 0) return
      headersDone = true
      let status = 200
      for (const line of head.subarray(0, sep).toString('latin1').split('\r\n')) {
        const i = line.indexOf(':')
        const k = line.slice(0, i).trim()
        const v = line.slice(i + 1).trim()
        if (k.toLowerCase() === 'status') status = parseInt(v, 10)
        else res.setHeader(k, v)
      }
      res.writeHead(status)
      res.write(head.subarray(sep + 4))
    })
    cgi.stderr.on('data', () => undefined)
    cgi.on('close', () => res.end())
  })
  return new Promise(resolve => {
    server.listen(0, '127.0.0.1', () => {
      const {port} = server.address() as {port: number}
      resolve({url: `http://127.0.0.1:${port}`, close: () => new Promise<void>(r => server.close(() => r()))})
    })
  })
}
