/**
 * The shapes of well-known credentials, one list for both checks: the store refuses a record
 * holding one (secrets.ts) and the redactor masks each (index.ts), on the same terms. Kept as
 * two lists they drifted: `x_AKIA…` was refused by one and not masked by the other, and an
 * agent naming a file that way stopped an attempt's observation for good.
 *
 * A prefix starts where no letter or digit is before it (`my_sk-…`, `x_ghp_…`: a word
 * boundary, `_` being a word character, let those through); an AWS key id, whose prefix no
 * word has, wherever it stands. Ids (xx-<24 hex>), digests
 * (sha256:<hex>) and git oids are not among the shapes.
 */
export const CREDENTIAL_SHAPES: readonly {re: RegExp; what: string}[] = [
  {re: /(?<![A-Za-z0-9])sk-[A-Za-z0-9_-]{16,}/, what: 'an API key (sk-…)'},
  {re: /(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/, what: 'a GitHub token'},
  {re: /(?<![A-Za-z0-9])xox[abprs]-[A-Za-z0-9-]{10,}/, what: 'a Slack token'},
  // (an AWS key id wherever it stands: `9AKIA…` or a key with a character after it is still one)
  {re: /(?:AKIA|ASIA)[0-9A-Z]{16}/, what: 'an AWS access key id'},
  {re: /(?<![A-Za-z0-9])glpat-[A-Za-z0-9_-]{20,}/, what: 'a GitLab token'},
  {re: /(?<![A-Za-z0-9])hf_[A-Za-z0-9]{30,}/, what: 'a Hugging Face token'},
  {re: /(?<![A-Za-z0-9])npm_[A-Za-z0-9]{36,}/, what: 'an npm token'},
  {re: /(?<![A-Za-z0-9])[sr]k_live_[A-Za-z0-9]{16,}/, what: 'a Stripe secret key'},
  {re: /(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{30,}/, what: 'a Google API key'},
  {re: /(?<![A-Za-z0-9])eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/, what: 'a JSON web token'},
  {re: /(?<![A-Za-z0-9])ya29\.[A-Za-z0-9_-]{20,}/, what: 'a Google OAuth token'},
  // (SG., a 22-character key id and a 43-character secret, both base64url)
  {re: /(?<![A-Za-z0-9])SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}/, what: 'a SendGrid API key'},
]

/**
 * Everything the store refuses by its shape (secrets.ts): the credentials above and a few forms
 * the redactor masks in its own way (a bearer token, a private key block, credentials in a URL,
 * a Basic authorization header). The redactor's last pass masks whatever of these is still in
 * its output (index.ts, makeRedactor), so what it hands on is never refused for a shape.
 */
export const REFUSED_SHAPES: readonly {re: RegExp; what: string; needs?: string}[] = [
  ...CREDENTIAL_SHAPES,
  {re: /\b(?:Bearer|BEARER|bearer)\s+[A-Za-z0-9._~+/=-]{16,}/, what: 'a bearer token'},
  {re: /-----BEGIN (?:[A-Z]+ )*PRIVATE KEY(?: BLOCK)?-----/, what: 'a private key'},
  // a password in a URL (`postgres://admin:pw@db`, `https://user:token@host`) and a Basic
  // authorization header: the redactor masks both, and neither is ordinary text
  // (`needs`: a literal every match holds. This shape may start at any word, and was half the
  // time of the store's scan of every record: the scan tries it only on text that holds `://`)
  {re: /\b[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s:/@]+:[^\s/@]+@[^\s/@]/, what: 'credentials in a URL', needs: '://'},
  // (in any case, as HTTP headers are: `authorization: Basic …` is how HTTP/2 tools print it.
  // Spelled out, not with /i: shapes are joined by their sources (joinedShapes) — with /i, the
  // lower-case header was stored)
  {re: /\b[Aa][Uu][Tt][Hh][Oo][Rr][Ii][Zz][Aa][Tt][Ii][Oo][Nn]:\s*[Bb][Aa][Ss][Ii][Cc]\s+[A-Za-z0-9+/]{8,}={0,2}/, what: 'a Basic authorization header'},
]

/**
 * One pattern of which each of `shapes`, or of the `more` sources, is an alternative: how the
 * store and the redactor check many shapes in one pass. Built from the shapes' sources, so a
 * shape's own flags would be lost: a shape with one is refused here (a Basic header shape with
 * /i let its lower-case form through, once).
 */
export function joinedShapes(shapes: readonly {re: RegExp}[], flags = '', more: readonly string[] = []): RegExp {
  for (const s of shapes) if (s.re.flags) throw new Error(`shape ${s.re} has flags of its own (${s.re.flags}): spell them out in the pattern`)
  return new RegExp([...shapes.map(s => s.re.source), ...more].map(s => `(?:${s})`).join('|'), flags)
}
