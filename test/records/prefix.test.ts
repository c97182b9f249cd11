import t from 'tap'
import {byPrefix} from '../../src/records/prefix.js'

// Found by a sweep: `exp inspect tr-7abf` (a prefix of two ids) said "unknown record id", then
// "did you mean one of". A prefix of several ids is called ambiguous, by every command.
t.test('an id, a unique prefix, an ambiguous prefix and no match', async t => {
  const ids = ['tr-7abf000000000000000000aa', 'tr-7abf000000000000000000bb', 'tr-1234000000000000000000cc']
  t.equal(byPrefix(ids, 'tr-1234', 'trace'), ids[2])
  t.equal(byPrefix(ids, ids[0]!, 'trace'), ids[0])
  t.equal(byPrefix(ids, 'tr-9999', 'trace'), undefined)
  t.equal(byPrefix(ids, 'tr-7ab', 'trace'), undefined, 'fewer than 4 hex digits is no prefix')
  t.throws(() => byPrefix(ids, 'tr-7abf', 'trace'), {code: 'E_NOT_FOUND', message: 'ambiguous trace prefix: tr-7abf begins 2 ids', hint: /give more of the id: tr-7abf0{18}aa, tr-7abf0{18}bb/})
  t.throws(() => byPrefix(ids, ' ', 'trace'), {code: 'E_INVALID_INPUT'})
})
