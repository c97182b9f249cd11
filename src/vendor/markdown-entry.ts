// The markdown parser's modules (unified, remark-parse, remark-gfm: ~340 small ES modules,
// ~90 ms to load), as scripts/vendor.mjs bundles them into dist/vendor/markdown.cjs; read
// through markdown.ts.
export {unified} from 'unified'
export {default as remarkParse} from 'remark-parse'
export {default as remarkGfm} from 'remark-gfm'
