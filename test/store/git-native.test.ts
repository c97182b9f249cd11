import t from 'tap'
import {GitRecordStore} from '../../src/store/index.js'
import {makeRepo} from '../helpers/repo.js'
import {storeContract} from './contract.js'

storeContract(t, async t => GitRecordStore.open(await makeRepo(t), {native: true}))
