import t from 'tap'
import {MemoryRecordStore} from '../../src/store/index.js'
import {storeContract} from './contract.js'

storeContract(t, async () => new MemoryRecordStore())
