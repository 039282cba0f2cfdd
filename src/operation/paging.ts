/**
 * When following pages stops: `--all` of a list command and `pay api --paginate`, one rule. pay asks for `page=N`,
 * its guess where the interface is silent (docs/assumptions.md, Customer collections paging); a service that pages
 * another way answers the same rows again with `has_more: true`, so following `has_more` alone would never end. A
 * page ends the run when it says it is the last (no `has_more`, or no rows), when the rows seen reach the
 * answer's `total`; it stops the run short, a problem (exit 1), when it repeats the page before (the service ignores
 * `page=`: it is not shown again), or when MAX_PAGES pages have been followed.
 */

/** The most pages one run follows: 100,000 rows at the service's largest page (per_page 100). */
const MAX_PAGES = 1000

interface PageStep {
  /** Whether to show this page: not when it repeats the one before. */
  show: boolean
  /** Whether to ask for the next page. */
  next: boolean
  /** Why paging stopped before the end of the list (shown as an error, exit 1). */
  problem?: string
}

export class PageFollower {
  private previous?: string
  private pages = 0
  private rows = 0

  constructor(private readonly maxPages = MAX_PAGES) {}

  /** Judges page `page` (its rows and its answer) before it is shown. */
  step(page: number, items: readonly unknown[], answer: {has_more?: unknown; total?: unknown}): PageStep {
    const total = typeof answer.total === 'number' ? answer.total : undefined
    const shown = () => `${this.rows} row(s) shown${total === undefined ? '' : ` of ${total}`}`
    const text = JSON.stringify(items)
    if (this.previous !== undefined && items.length > 0 && text === this.previous) {
      return {show: false, next: false, problem: `stopped paging: page ${page} repeats the page before, so the service does not page by \`page=\`; ${shown()}`}
    }
    this.previous = text
    this.pages++
    this.rows += items.length
    if (!answer.has_more || items.length === 0) return {show: true, next: false}
    if (total !== undefined && this.rows >= total) return {show: true, next: false}
    if (this.pages >= this.maxPages) {
      return {show: true, next: false, problem: `stopped paging after ${this.maxPages} pages (the most one run follows), though the service says there are more; ${shown()}`}
    }
    return {show: true, next: true}
  }
}
