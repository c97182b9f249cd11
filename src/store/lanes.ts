import os from 'node:os'
import {InvalidNameError} from '../errors/index.js'

export const PUBLIC_PREFIX = 'refs/research/lanes/'
export const PRIVATE_PREFIX = 'refs/research/private/'
export const REJECTED_PREFIX = 'refs/research/rejected/'

const LANE_RE = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,99}$/

/** Check a lane name: one ref component, nothing that escapes refs/research/ or upsets git. */
export function validateLane(name: string, what = 'lane name'): string {
  if (typeof name !== 'string' || name.length === 0) throw new InvalidNameError(what, String(name), 'it is empty')
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) throw new InvalidNameError(what, name, 'it contains control characters')
  if (name.includes('..')) throw new InvalidNameError(what, name, "it contains '..'")
  if (name.includes('/')) throw new InvalidNameError(what, name, "it contains '/' (a lane is a single ref component)")
  if (name.includes('.lock') || name.endsWith('.')) throw new InvalidNameError(what, name, "it contains '.lock' or ends with '.'")
  if (!LANE_RE.test(name)) throw new InvalidNameError(what, name, 'only letters, digits and . _ - @ + are allowed, starting with a letter or digit, at most 100 characters')
  return name
}

/** Whether a string is a valid lane name (validateLane would accept it). */
export function isLaneName(name: string): boolean {
  try {
    validateLane(name)
    return true
  } catch {
    return false
  }
}

/** Turn any string (e.g. user@host) into a valid lane name. */
export function sanitizeLane(raw: string): string {
  let s = raw.replace(/[^A-Za-z0-9._@+-]+/g, '-').replace(/\.{2,}/g, '.').replace(/^[^A-Za-z0-9]+/, '')
  s = s.replace(/(\.lock|\.)+$/i, '').slice(0, 100).replace(/[.]+$/, '')
  return s || 'lane'
}

export function laneRef(lane: string, isPrivate = false): string {
  return `${isPrivate ? PRIVATE_PREFIX : PUBLIC_PREFIX}${validateLane(lane)}`
}

export interface LaneRefInfo {
  lane: string
  private: boolean
}

export function parseLaneRef(ref: string): LaneRefInfo | undefined {
  if (ref.startsWith(PUBLIC_PREFIX)) return {lane: ref.slice(PUBLIC_PREFIX.length), private: false}
  if (ref.startsWith(PRIVATE_PREFIX)) return {lane: ref.slice(PRIVATE_PREFIX.length), private: true}
  return undefined
}

export interface LaneSources {
  flag?: string
  env?: NodeJS.ProcessEnv
  /** git config exp.lane */
  gitConfig?: string
  user?: string
  host?: string
}

/** Lane name from --lane, else EXP_LANE, else git config exp.lane, else a sanitized user@host. */
export function resolveLane(src: LaneSources): {lane: string; source: 'flag' | 'env' | 'git-config' | 'user@host'} {
  // an empty --lane is a mistake (an unset variable in a script), not a request for the default
  if (src.flag !== undefined) return {lane: validateLane(src.flag, 'lane name (--lane)'), source: 'flag'}
  const env = src.env ?? process.env
  if (env.EXP_LANE) return {lane: validateLane(env.EXP_LANE, 'lane name (EXP_LANE)'), source: 'env'}
  if (src.gitConfig) return {lane: validateLane(src.gitConfig, 'lane name (git config exp.lane)'), source: 'git-config'}
  const user = src.user ?? safeUser()
  const host = src.host ?? os.hostname()
  return {lane: sanitizeLane(`${user}@${host}`), source: 'user@host'}
}

function safeUser(): string {
  try {
    return os.userInfo().username
  } catch {
    return process.env.USER ?? 'user'
  }
}
