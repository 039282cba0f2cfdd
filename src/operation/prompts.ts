/**
 * Interactive prompting for missing required input (only ever called when `out.term.interactive`: stdin and
 * stderr are terminals and CI is unset). Prompts are drawn on stderr so that stdout keeps only data.
 * Lists the service knows (mobile providers, banks, subscription plans) are offered as choices, fetched from
 * the metadata and plans endpoints; when a list cannot be fetched the prompt falls back to free text.
 * @inquirer/prompts is imported here, lazily, and nowhere else in the request path.
 */
import type {ChoiceSource, PromptSpec} from '../api/operation-types.js'
import type {ApiClient} from '../client/api-client.js'
import type {Output} from '../output/output.js'
import {printableLine} from '../output/printable.js'

export type {ChoiceSource, PromptSpec} from '../api/operation-types.js'

interface Choice {
  name: string
  value: string
  description?: string
}

/**
 * Fetches the choices of a list source; undefined when the service would not give them. What is shown of a choice
 * (its name, its description) is network text drawn on the terminal: made printable on one line; its value, what
 * is sent, stays the service's exact value.
 */
export async function fetchChoices(client: ApiClient, out: Output, source: ChoiceSource): Promise<Choice[] | undefined> {
  try {
    if (source === 'providers') {
      const res = await client.call<{data?: {provider?: string}[]}>('metadata.providers')
      return (res.body?.data ?? []).filter((p) => typeof p.provider === 'string').map((p) => ({name: printableLine(p.provider!), value: p.provider!}))
    }
    if (source === 'banks') {
      const res = await client.call<{data?: {bank_code?: string; bank_name?: string}[]}>('metadata.banks')
      return (res.body?.data ?? [])
        .filter((b) => typeof b.bank_code === 'string')
        .map((b) => ({name: printableLine(`${b.bank_name ?? b.bank_code} (${b.bank_code})`), value: b.bank_code!}))
    }
    const res = await client.call<{data?: Record<string, unknown>[]}>('plans.list')
    return (res.body?.data ?? [])
      .filter((p) => typeof p.plan_id === 'string')
      .map((p) => {
        const price = [p.amount, p.currency, p.frequency].filter((v) => typeof v === 'string').join(' ')
        return {name: printableLine(`${String(p.plan_name ?? p.plan_id)} (${String(p.plan_id)})`), value: String(p.plan_id), description: price ? printableLine(price) : undefined}
      })
  } catch (err) {
    out.warnQuoting(`could not load the ${source} list (${(err as Error).message}); type the value instead`)
    return undefined
  }
}

/**
 * Asks for one value. `validate` gets the raw answer and returns true or the rule it breaks.
 * Returns undefined for an empty answer to an optional question.
 */
export async function ask(
  spec: PromptSpec,
  ctx: {client: ApiClient; out: Output},
  validate: (value: string) => true | string,
): Promise<string> {
  const inquirer = await import('@inquirer/prompts')
  const context = {output: ctx.out.errorStream}
  let choices: Choice[] | undefined
  if (typeof spec.choices === 'string') choices = await fetchChoices(ctx.client, ctx.out, spec.choices as ChoiceSource)
  else if (spec.choices) choices = spec.choices.map((c) => ({name: c, value: c}))
  if (choices && choices.length > 0) {
    return inquirer.select({message: spec.message, choices, default: spec.default, pageSize: 12}, context)
  }
  if (spec.secret) return inquirer.password({message: spec.message, mask: '*', validate}, context)
  const answer = await inquirer.input({message: spec.message, default: spec.default, validate: (v: string) => validate(v.trim())}, context)
  return answer.trim()
}
