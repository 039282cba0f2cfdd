/**
 * JSON numbers a JS number would change (src/base/json-numbers.ts): sent as written, kept apart in the journal's match,
 * an answer's big integers kept as their digits.
 */
import {describe, expect, it} from 'vitest'
import {bigIntegersAsStrings, markLossy, parseMarked, stringifyMarked} from '../../src/base/json-numbers.js'
import {canonicalJson} from '../../src/base/canonical-json.js'

describe('numbers as written', () => {
  it('a body round-trips with every number spelled as given, strings untouched', () => {
    const text = '{"big":12345678901234567890,"neg":-98765432109876543210,"p":1.50,"e":1e2,"z":-0,"n":12,"f":1.5,"s":"12345678901234567890 \\" 1.50","a":[9007199254740993.01,3]}'
    const marked = parseMarked(text)
    expect(marked).toBeDefined()
    expect(stringifyMarked(marked)).toBe(text)
    // merged into another value (pay api's -F over --data), still written as given
    expect(stringifyMarked({...(marked as object), x: 'y'})).toBe(`${text.slice(0, -1)},"x":"y"}`)
  })

  it('nothing a JS number changes: undefined (JSON.parse reads it the same)', () => {
    expect(parseMarked('{"a":12,"b":1.5,"c":"1.50","d":[-3,0.25]}')).toBeUndefined()
    expect(() => parseMarked('{"a":1.50')).toThrow()
  })

  it("a user's string that looks like a marked number stays a string", () => {
    const text = '{"s":"\\u0001pay-number-x:12","n":1.50}'
    expect(stringifyMarked(parseMarked(text))).toBe(text)
  })

  it('markLossy: two integers one double would blur compare apart; spellings of one value still compare equal', () => {
    const canon = (t: string) => canonicalJson(JSON.parse(markLossy(t)))
    expect(canon('{"n":12345678901234567890}')).not.toBe(canon('{"n":12345678901234567891}'))
    expect(canon('{"b":12345678901234567890,"a":1}')).toBe(canon('{"a":1,"b":12345678901234567890}'))
    expect(canon('{"p":1.50}')).toBe(canon('{"p":1.5}'))
    expect(canon('{"n":12345678901234567890}')).not.toBe(canon('{"n":"12345678901234567890"}'))
  })

  it('bigIntegersAsStrings: only integers beyond 2^53, outside strings', () => {
    expect(bigIntegersAsStrings('{"id":9007199254740993,"s":"9007199254740993","f":9007199254740993.5,"k":9007199254740991}')).toBe('{"id":"9007199254740993","s":"9007199254740993","f":9007199254740993.5,"k":9007199254740991}')
  })
})
