import {expect, it} from 'vitest'
import {bodyView} from '../../src/webhooks/body-view.js'

it('a body that is JSON is shown as its value, from text or bytes', () => {
  expect(bodyView('{"received":true,"n":[1,2]}')).toEqual({received: true, n: [1, 2]})
  expect(bodyView(Buffer.from('{"id":"EVT_1","amount":"250.00"}'))).toEqual({id: 'EVT_1', amount: '250.00'})
  expect(bodyView('null')).toBeNull()
})

it('any other body is shown as the text it came as', () => {
  expect(bodyView('OK')).toBe('OK')
  expect(bodyView(Buffer.from('{"cut": '))).toBe('{"cut": ')
  expect(bodyView('')).toBe('')
})
