import t from 'tap'
import {GitRecordStore} from '../../src/store/index.js'
import {makeRepo} from '../helpers/repo.js'
import {storeContract} from './contract.js'

// the pure isomorphic-git adapter (no git binary), packs forced on every batch
storeContract(t, async t => GitRecordStore.open(await makeRepo(t), {native: false, packThreshold: 2}))
