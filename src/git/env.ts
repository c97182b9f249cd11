/**
 * The environment of every git process exp reads or writes history with: what the objects
 * say, not a local overlay on them. Replace refs (`git replace`) and a graft file change what
 * git answers for an object id or a commit's parents: a record's blob replaced by other bytes
 * (a keyed record's forged content passes every check of the bytes alone) was read in its
 * place and `exp fsck` was clean; a graft hid the records of the commits it cut out. A clone
 * copies neither, isomorphic-git reads neither, and a view must not depend on them.
 * (`GIT_GRAFT_FILE=/dev/null`: an empty graft file, read without git's deprecation hint.)
 */
export function gitEnv(extra?: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {...process.env, GIT_NO_REPLACE_OBJECTS: '1', GIT_GRAFT_FILE: '/dev/null', ...extra}
}
