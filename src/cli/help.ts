import {Help} from '../vendor/oclif.js'

/** oclif's help, unchanged: the hook where exp can adjust how help renders. */
export default class ExpHelp extends Help {}
