import {withEncodedForms} from '../../redact/encodings.js'

/**
 * Removes secrets from any text we are about to keep or show (outcome reasons, error
 * messages, cache entries). The SDK already keeps the key out of its own errors; this is
 * the belt to its braces, for servers or proxies that echo request headers back.
 */
export type Redactor = (text: string) => string

const MASK = '[redacted]'

export function redactor(secrets: readonly (string | undefined)[]): Redactor {
  // very short "secrets" (placeholders such as "x") would mangle ordinary text
  const given = secrets.filter((s): s is string => typeof s === 'string' && s.length >= 6)
  if (given.length === 0) return text => text
  // and the forms a server that echoes the key may give it in (base64, hex, percent-encoded):
  // a reply with the key base64-encoded reached the response cache with only its literal masked
  const list = withEncodedForms(given).sort((a, b) => b.length - a.length)
  return text => list.reduce((acc, s) => acc.split(s).join(MASK), text)
}
